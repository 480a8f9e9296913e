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

/** What one check saw: when something last arrived, what the platform shows, and now. */
export interface LivenessView {
  /** When something last arrived on the connection (or it opened), ms since the epoch. */
  lastArrivalAt: number;
  now: number;
  deafAfterMs: number;
  /** A message the platform shows where the bot listens that never arrived; undefined: none (quiet). */
  unheard: Unheard | undefined;
  /** What the previous check found unheard, with nothing arriving since; undefined: nothing. */
  shownBefore: Unheard | undefined;
}

/**
 * A check's verdict: `hearing` (something arrived within `deafAfterMs`: the platform need not be
 * asked), `quiet` (the platform shows nothing missed: a quiet place is never deaf), `suspect` (it
 * shows a missed message for the first time: it may still be on its way) or `deaf` (shown at two
 * checks in a row with nothing arriving in between: it had every chance to arrive).
 */
export type LivenessVerdict =
  | { kind: 'hearing' | 'quiet' }
  | { kind: 'suspect'; unheard: Unheard }
  | { kind: 'deaf'; unheard: Unheard; silentMs: number };

/** Whether nothing has arrived for long enough that the platform is asked. */
export const silentTooLong = (view: Pick<LivenessView, 'lastArrivalAt' | 'now' | 'deafAfterMs'>): boolean =>
  view.now - view.lastArrivalAt >= view.deafAfterMs;

/** The decision of the inbound liveness check, over values only (`LivenessVerdict`). */
export function judgeLiveness(view: LivenessView): LivenessVerdict {
  if (!silentTooLong(view)) return { kind: 'hearing' };
  if (view.unheard === undefined) return { kind: 'quiet' };
  if (view.shownBefore === undefined) return { kind: 'suspect', unheard: view.unheard };
  return { kind: 'deaf', unheard: view.unheard, silentMs: view.now - view.lastArrivalAt };
}

/** The one line that says why a connection is deaf, naming the platform and the evidence. */
export const deafReason = (platform: string, verdict: { unheard: Unheard; silentMs: number }): string =>
  `nothing arrived for ${Math.round(verdict.silentMs / 1000)} s while ${platform} shows a message in ${verdict.unheard.channelId} (${verdict.unheard.messageId}) that never did`;

/**
 * The inbound liveness of one connection, which does not trust "connected": a connection can stay
 * open, answer pings or heartbeats, and hear nothing (Slack routing events to a stale connection,
 * a zombie gateway session). While events arrive, nothing is asked. Once nothing has arrived for
 * `deafAfterMs`, every `checkIntervalMs` the platform is asked (`probe`) for a message others
 * posted where the bot listens, newer than anything heard there, and `judgeLiveness` decides: a
 * connection found deaf is told to `deaf` with why, once, and the watch stops (the supervisor
 * starts the adapter again). A probe that fails is logged and decides nothing.
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
  /** The clock (ms since the epoch); `Date.now` unless a test sets it. */
  now?: () => number;
}): LivenessWatch {
  const { deafAfterMs, checkIntervalMs } = options.settings ?? DEFAULT_LIVENESS;
  const now = options.now ?? Date.now;
  let lastArrivalAt = now();
  let shownBefore: Unheard | undefined;
  let timer: NodeJS.Timeout | undefined;
  let checking = false;
  const stop = () => {
    clearInterval(timer);
    timer = undefined;
    shownBefore = undefined;
  };
  const check = async () => {
    if (!silentTooLong({ lastArrivalAt, now: now(), deafAfterMs })) return;
    const unheard = await options.probe();
    // Stopped while the platform answered: nothing to decide.
    if (timer === undefined) return;
    // Read after the answer: something that arrived meanwhile counts.
    const verdict = judgeLiveness({ lastArrivalAt, now: now(), deafAfterMs, unheard, shownBefore });
    shownBefore = verdict.kind === 'suspect' || verdict.kind === 'deaf' ? verdict.unheard : undefined;
    if (verdict.kind !== 'deaf') return;
    stop();
    options.deaf(deafReason(options.platform, verdict));
  };
  return {
    arrived() {
      lastArrivalAt = now();
      shownBefore = undefined;
    },
    start() {
      stop();
      lastArrivalAt = now();
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
