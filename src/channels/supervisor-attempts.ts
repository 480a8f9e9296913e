import type { Logger } from '../logging/index.js';
import type { InboundHandler } from '../messages/index.js';
import { type ReconnectSettings, retryDelay } from './backoff.js';
import { describeStartFailure } from './network-error.js';
import type { ChannelState, SupervisedChannel } from './supervisor.js';
import type { ConnectionEvent } from './types.js';

/** One supervised adapter and how its attempts fare. */
export interface SupervisedEntry extends SupervisedChannel {
  state: ChannelState;
  failures: number;
  timer?: NodeJS.Timeout | undefined;
  attempt?: Promise<void> | undefined;
  /** A start (after a failure or a lost connection) is planned or running. */
  restarting: boolean;
  /** Why it is not connected (the failed start's one line, or the lost connection); none when connected. */
  reason?: string | undefined;
  /** When `state` last changed (ms since the epoch). */
  since: number;
}

/** Moves `entry` to `state`, with the reason when that is not `connected`. */
function moveTo(entry: SupervisedEntry, state: ChannelState, reason?: string): void {
  if (entry.state !== state) entry.since = Date.now();
  entry.state = state;
  entry.reason = state === 'connected' ? undefined : reason;
}

/** What the supervisor's attempts share: set by `start`, `stopped` by `endRetries`. */
export interface SupervisorState {
  readonly entries: SupervisedEntry[];
  readonly logger: Logger;
  /** In [0, 1): the backoff's jitter. */
  readonly random: () => number;
  stopped: boolean;
  handler?: InboundHandler | undefined;
}

/**
 * Starts `entry`'s adapter once. A failure of an adapter with `reconnect` plans the next attempt
 * (see `planRetry`) and resolves; one without rethrows (the web chat fails the gateway's start).
 */
export function startAttempt(state: SupervisorState, entry: SupervisedEntry): Promise<void> {
  const { logger } = state;
  entry.restarting = true;
  const run = (async () => {
    try {
      await entry.adapter.start(state.handler as InboundHandler);
    } catch (error) {
      await entry.adapter.stop().catch(() => {});
      if (entry.reconnect === undefined) throw error;
      planRetry(state, entry, entry.reconnect, error);
      return;
    }
    if (entry.failures > 0)
      logger.info(
        { channel: entry.adapter.name, attempts: entry.failures + 1 },
        `${entry.adapter.name} connected after ${entry.failures + 1} attempts`,
      );
    moveTo(entry, 'connected');
    entry.failures = 0;
    entry.restarting = false;
    // Stopped while connecting: the stop that is waiting for this attempt closes it.
  })();
  entry.attempt = run;
  return run;
}

/** Counts the failure, says why, and (unless stopped) plans the next attempt with backoff. */
function planRetry(
  state: SupervisorState,
  entry: SupervisedEntry,
  settings: ReconnectSettings,
  error: unknown,
): void {
  const { logger } = state;
  const name = entry.adapter.name;
  const refused = entry.adapter.tokenRefused?.(error) === true;
  const reason = describeStartFailure(error);
  entry.failures += 1;
  moveTo(entry, refused ? 'refused' : 'retrying', refused ? `refused the credentials (${reason})` : reason);
  if (state.stopped) return;
  const delayMs = retryDelay(entry.failures, settings, refused, state.random);
  const details = { channel: name, attempts: entry.failures, retryInMs: delayMs };
  if (refused)
    logger.error(
      details,
      `${name} refused the credentials (${reason}); fix channels.${name} (\`switchboard doctor\` checks it); trying again in ${readableWait(delayMs)}, the other channels keep running`,
    );
  else
    logger[entry.failures === 1 ? 'error' : 'warn'](
      details,
      `${name} could not start (${reason}); trying again in ${readableWait(delayMs)}, the other channels keep running`,
    );
  entry.timer = setTimeout(() => {
    entry.timer = undefined;
    if (!state.stopped) void startAttempt(state, entry).catch(() => {});
  }, delayMs);
  // A planned retry must not keep a stopping process alive.
  entry.timer.unref();
}

/** What the adapter says of its connection once started (see `ChannelAdapter.watch`). */
export function connectionChanged(
  state: SupervisorState,
  entry: SupervisedEntry,
  event: ConnectionEvent,
  error?: unknown,
): void {
  const { logger } = state;
  const name = entry.adapter.name;
  if (state.stopped || entry.restarting || entry.state === 'connecting') return;
  if (event === 'up' && entry.state === 'retrying') {
    moveTo(entry, 'connected');
    logger.info({ channel: name }, `${name} reconnected`);
  } else if (event === 'down' && entry.state === 'connected') {
    moveTo(entry, 'retrying', 'lost its connection; reconnecting');
    logger.warn({ channel: name }, `${name} lost its connection; reconnecting`);
  } else if (event === 'lost' && entry.reconnect !== undefined) {
    moveTo(entry, 'retrying', 'lost its connection for good; starting it again');
    logger.warn(
      { channel: name, err: error },
      `${name} lost its connection for good; starting it again (with backoff while that fails)`,
    );
    // At once: the platform may be back already; failures from here on back off.
    void (async () => {
      entry.restarting = true;
      await entry.adapter.stop().catch(() => {});
      if (!state.stopped) await startAttempt(state, entry).catch(() => {});
    })();
  }
}

/** A wait in the unit a reader wants: ms, s, or whole minutes. */
function readableWait(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120_000) return `${Math.round(ms / 100) / 10} s`;
  return `${Math.round(ms / 60_000)} min`;
}
