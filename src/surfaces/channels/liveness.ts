import type { Logger } from '../../base/logging/index.js';

/** `channels.<platform>.liveness` (the schema's defaults when a config built in code leaves it out). */
export interface LivenessSettings {
  /** Nothing arrived for this long: the platform is asked; 0 turns the check off. */
  deafAfterMs: number;
  /** How often that is checked while nothing arrives. */
  checkIntervalMs: number;
}

export const DEFAULT_LIVENESS: LivenessSettings = { deafAfterMs: 180_000, checkIntervalMs: 30_000 };

/** At most this many channels are read per check (the most recently heard ones). */
export const LIVENESS_CHANNELS = 20;

/** A message the platform shows where the bot listens that never arrived on the connection. */
export interface Unheard {
  channelId: string;
  messageId: string;
}

/**
 * The inbound liveness of one connection, which does not trust "connected": a connection can stay
 * open, answer pings or heartbeats, and hear nothing (Slack routing events to a stale connection,
 * a zombie gateway session). While events arrive, nothing is asked. Once nothing has arrived for
 * `deafAfterMs`, every `checkIntervalMs` the platform is asked (`probe`) for a message others
 * posted where the bot listens, newer than anything heard there; one it shows at two checks in a
 * row, with nothing arriving in between, means the connection is deaf: `deaf` is told why, once,
 * and the watch stops (the adapter is started again). A quiet place (no such message) is never
 * deaf; a probe that fails is logged and decides nothing.
 */
export interface LivenessWatch {
  /** Something arrived on the connection (any event, whoever it is from). */
  arrived(): void;
  start(): void;
  stop(): void;
}

export function createLivenessWatch(options: {
  settings: LivenessSettings | undefined;
  /** `Slack`, `Discord`: how the reason names the platform. */
  platform: string;
  probe(): Promise<Unheard | undefined>;
  deaf(reason: string): void;
  logger: Logger;
}): LivenessWatch {
  const { deafAfterMs, checkIntervalMs } = options.settings ?? DEFAULT_LIVENESS;
  let lastArrival = Date.now();
  let candidate: Unheard | undefined;
  let timer: NodeJS.Timeout | undefined;
  let checking = false;
  const stop = () => {
    clearInterval(timer);
    timer = undefined;
    candidate = undefined;
  };
  /** The message a check found unheard, or undefined when the connection is not deaf (yet). */
  const deafness = async (): Promise<Unheard | undefined> => {
    if (Date.now() - lastArrival < deafAfterMs) return undefined;
    const before = lastArrival;
    const unheard = await options.probe();
    // Something arrived while the platform answered, or the watch stopped: not deaf.
    if (lastArrival !== before || timer === undefined) return undefined;
    return unheard;
  };
  const check = async () => {
    const unheard = await deafness();
    const shownBefore = candidate;
    candidate = unheard;
    // Shown at the last check too: it had every chance to arrive.
    if (unheard === undefined || shownBefore === undefined) return;
    const silentMs = Date.now() - lastArrival;
    stop();
    options.deaf(
      `nothing arrived for ${Math.round(silentMs / 1000)} s while ${options.platform} shows a message in ${unheard.channelId} (${unheard.messageId}) that never did; connecting again`,
    );
  };
  return {
    arrived() {
      lastArrival = Date.now();
      candidate = undefined;
    },
    start() {
      stop();
      lastArrival = Date.now();
      if (deafAfterMs === 0) return;
      timer = setInterval(() => {
        if (checking) return;
        checking = true;
        check()
          .catch((error: unknown) =>
            options.logger.warn(
              { err: error },
              `${options.platform} liveness check failed; tried again later`,
            ),
          )
          .finally(() => {
            checking = false;
          });
      }, checkIntervalMs);
      timer.unref();
    },
    stop,
  };
}

/** The channels most recently heard in first, at most LIVENESS_CHANNELS (`heard` moves one to the front). */
export function recentChannels() {
  const order = new Map<string, true>();
  return {
    heard(channelId: string): boolean {
      const known = order.has(channelId);
      order.delete(channelId);
      order.set(channelId, true);
      if (order.size > LIVENESS_CHANNELS) order.delete(order.keys().next().value as string);
      return !known;
    },
    list: (): string[] => [...order.keys()].reverse(),
  };
}
