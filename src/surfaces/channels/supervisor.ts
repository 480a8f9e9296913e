import type { Logger } from '../../base/logging/index.js';
import type { ChannelName, InboundHandler } from '../../base/messages/index.js';
import {
  type ChannelDetail,
  type ChannelState,
  type SupervisedChannel,
  SupervisedEntry,
} from './supervised-entry.js';

export type { ChannelDetail, ChannelState, SupervisedChannel };

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
 * (`supervised-entry.ts`).
 */
export function createChannelSupervisor(options: ChannelSupervisorOptions): ChannelSupervisor {
  const { logger } = options;
  let stopped = false;
  let handler: InboundHandler | undefined;
  const run = {
    logger,
    random: options.random ?? Math.random,
    stopped: () => stopped,
    handler: () => handler as InboundHandler,
  };
  const entries = options.channels.map((channel) => new SupervisedEntry(channel, run));

  function endRetries() {
    stopped = true;
    for (const entry of entries) entry.endRetries();
  }

  return {
    async start(onInbound) {
      handler = onInbound;
      stopped = false;
      for (const entry of entries) await entry.start();
    },
    states: () => Object.fromEntries(entries.map((entry) => [entry.adapter.name, entry.state])),
    details: () => entries.map((entry) => entry.detail()),
    endRetries,
    async stop() {
      endRetries();
      await Promise.all(entries.map((entry) => entry.settled()));
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
