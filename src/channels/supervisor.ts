import type { Logger } from '../logging/index.js';
import type { ChannelName, InboundHandler } from '../messages/index.js';
import { type ReconnectSettings, retryDelay } from './backoff.js';
import { describeStartFailure } from './network-error.js';
import type { ChannelAdapter, ConnectionEvent } from './types.js';

/**
 * Where a channel stands: `connecting` (its first attempt runs), `connected`, `retrying` (an
 * attempt failed; the next one is planned) or `refused` (the platform refused the credentials:
 * a config problem, retried slowly).
 */
export type ChannelState = 'connecting' | 'connected' | 'retrying' | 'refused';

export interface SupervisedChannel {
  adapter: ChannelAdapter;
  /** How failed starts are retried; without it (the web chat) a failed start fails the gateway's start. */
  reconnect?: ReconnectSettings | undefined;
}

export interface ChannelSupervisorOptions {
  channels: readonly SupervisedChannel[];
  logger: Logger;
  /** In [0, 1): the backoff's jitter. */
  random?: () => number;
}

export interface ChannelSupervisor {
  /**
   * Starts every channel and resolves once each has made its first attempt. A channel with
   * `reconnect` that fails is retried in the background until it connects or `stop` is called;
   * one without rejects the start.
   */
  start(onInbound: InboundHandler): Promise<void>;
  /** Each channel's state, by name. */
  states(): Partial<Record<ChannelName, ChannelState>>;
  /** No more retries (a gateway that is stopping keeps the connected channels for its last replies). */
  endRetries(): void;
  /** Ends the retries, waits for an attempt under way, and stops every channel (last started first). */
  stop(): Promise<void>;
}

interface Entry extends SupervisedChannel {
  state: ChannelState;
  failures: number;
  timer?: NodeJS.Timeout | undefined;
  attempt?: Promise<void> | undefined;
  /** A start (after a failure or a lost connection) is planned or running. */
  restarting: boolean;
}

/**
 * Keeps chat channels connected: a platform that is down when the gateway starts (or refuses the
 * token) costs that channel only, and the channel is tried again with capped, jittered backoff.
 */
export function createChannelSupervisor(options: ChannelSupervisorOptions): ChannelSupervisor {
  const { logger } = options;
  const random = options.random ?? Math.random;
  const entries: Entry[] = options.channels.map((channel) => ({
    ...channel,
    state: 'connecting',
    failures: 0,
    restarting: false,
  }));
  let stopped = false;
  let handler: InboundHandler | undefined;

  const attempt = (entry: Entry): Promise<void> => {
    entry.restarting = true;
    const run = (async () => {
      try {
        await entry.adapter.start(handler as InboundHandler);
      } catch (error) {
        await entry.adapter.stop().catch(() => {});
        if (entry.reconnect === undefined) throw error;
        failed(entry, entry.reconnect, error);
        return;
      }
      if (entry.failures > 0)
        logger.info(
          { channel: entry.adapter.name, attempts: entry.failures + 1 },
          `${entry.adapter.name} connected after ${entry.failures + 1} attempts`,
        );
      entry.state = 'connected';
      entry.failures = 0;
      entry.restarting = false;
      // Stopped while connecting: the stop that is waiting for this attempt closes it.
    })();
    entry.attempt = run;
    return run;
  };

  const failed = (entry: Entry, settings: ReconnectSettings, error: unknown) => {
    const name = entry.adapter.name;
    const refused = entry.adapter.tokenRefused?.(error) === true;
    entry.failures += 1;
    entry.state = refused ? 'refused' : 'retrying';
    if (stopped) return;
    const delayMs = retryDelay(entry.failures, settings, refused, random);
    const details = { channel: name, attempts: entry.failures, retryInMs: delayMs };
    const reason = describeStartFailure(error);
    if (refused)
      logger.error(
        details,
        `${name} refused the credentials (${reason}); fix channels.${name} (\`switchboard doctor\` checks it); trying again in ${seconds(delayMs)}, the other channels keep running`,
      );
    else
      logger[entry.failures === 1 ? 'error' : 'warn'](
        details,
        `${name} could not start (${reason}); trying again in ${seconds(delayMs)}, the other channels keep running`,
      );
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      if (!stopped) void attempt(entry).catch(() => {});
    }, delayMs);
    // A planned retry must not keep a stopping process alive.
    entry.timer.unref();
  };

  /** What the adapter says of its connection once started (see `ChannelAdapter.watch`). */
  const changed = (entry: Entry, event: ConnectionEvent, error?: unknown) => {
    const name = entry.adapter.name;
    if (stopped || entry.restarting || entry.state === 'connecting') return;
    if (event === 'up' && entry.state === 'retrying') {
      entry.state = 'connected';
      logger.info({ channel: name }, `${name} reconnected`);
    } else if (event === 'down' && entry.state === 'connected') {
      entry.state = 'retrying';
      logger.warn({ channel: name }, `${name} lost its connection; reconnecting`);
    } else if (event === 'lost' && entry.reconnect !== undefined) {
      entry.state = 'retrying';
      logger.warn(
        { channel: name, err: error },
        `${name} lost its connection for good; starting it again (with backoff while that fails)`,
      );
      // At once: the platform may be back already; failures from here on back off.
      void (async () => {
        entry.restarting = true;
        await entry.adapter.stop().catch(() => {});
        if (!stopped) await attempt(entry).catch(() => {});
      })();
    }
  };
  for (const entry of entries) entry.adapter.watch?.((event, error) => changed(entry, event, error));

  function endRetries() {
    stopped = true;
    for (const entry of entries) clearTimeout(entry.timer);
  }

  return {
    async start(onInbound) {
      handler = onInbound;
      stopped = false;
      for (const entry of entries) await attempt(entry);
    },
    states: () => Object.fromEntries(entries.map((entry) => [entry.adapter.name, entry.state])),
    endRetries,
    async stop() {
      endRetries();
      await Promise.all(entries.map((entry) => entry.attempt?.catch(() => {})));
      for (const entry of [...entries].reverse()) {
        await entry.adapter
          .stop()
          .catch((error: unknown) =>
            logger.warn({ err: error, channel: entry.adapter.name }, 'channel stop failed'),
          );
      }
    },
  };
}

/** A wait in the unit a reader wants: ms, s, or whole minutes. */
function seconds(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120_000) return `${Math.round(ms / 100) / 10} s`;
  return `${Math.round(ms / 60_000)} min`;
}
