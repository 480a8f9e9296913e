import type { Logger } from '../logging/index.js';
import type { ChannelName, InboundHandler } from '../messages/index.js';
import type { ReconnectSettings } from './backoff.js';
import { connectionChanged, type SupervisorState, startAttempt } from './supervisor-attempts.js';
import type { ChannelAdapter } from './types.js';

/**
 * Where a channel stands: `connecting` (its first attempt runs), `connected`, `retrying` (an
 * attempt failed; the next one is planned) or `refused` (the platform refused the credentials:
 * a config problem, retried slowly).
 */
export type ChannelState = 'connecting' | 'connected' | 'retrying' | 'refused';

/** One channel for the health page: its state, why it is not connected, since when (ms since the epoch). */
export interface ChannelDetail {
  name: ChannelName;
  state: ChannelState;
  reason?: string;
  /** Failed attempts since it last connected. */
  attempts: number;
  since: number;
}

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
  /** Each channel's state with why it is not connected (unscrubbed: it may quote an error). */
  details(): ChannelDetail[];
  /** No more retries (a gateway that is stopping keeps the connected channels for its last replies). */
  endRetries(): void;
  /** Ends the retries, waits for an attempt under way, and stops every channel (last started first). */
  stop(): Promise<void>;
}

/**
 * Keeps chat channels connected: a platform that is down when the gateway starts (or refuses the
 * token) costs that channel only, and the channel is tried again with capped, jittered backoff
 * (`supervisor-attempts.ts`).
 */
export function createChannelSupervisor(options: ChannelSupervisorOptions): ChannelSupervisor {
  const state: SupervisorState = {
    entries: options.channels.map((channel) => ({
      ...channel,
      state: 'connecting',
      since: Date.now(),
      failures: 0,
      restarting: false,
    })),
    logger: options.logger,
    random: options.random ?? Math.random,
    stopped: false,
  };
  const { entries, logger } = state;
  for (const entry of entries)
    entry.adapter.watch?.((event, error) => connectionChanged(state, entry, event, error));

  function endRetries() {
    state.stopped = true;
    for (const entry of entries) clearTimeout(entry.timer);
  }

  return {
    async start(onInbound) {
      state.handler = onInbound;
      state.stopped = false;
      for (const entry of entries) await startAttempt(state, entry);
    },
    states: () => Object.fromEntries(entries.map((entry) => [entry.adapter.name, entry.state])),
    details: () =>
      entries.map((entry) => ({
        name: entry.adapter.name,
        state: entry.state,
        ...(entry.reason === undefined ? {} : { reason: entry.reason }),
        attempts: entry.failures,
        since: entry.since,
      })),
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
