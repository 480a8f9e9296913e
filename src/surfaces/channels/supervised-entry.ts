import type { Logger } from '../../base/logging/index.js';
import type { ChannelName, InboundHandler } from '../../base/messages/index.js';
import { type ReconnectSettings, retryDelay } from './backoff.js';
import { describeStartFailure } from './network-error.js';
import type { ChannelAdapter, ConnectionEvent } from './types.js';

/**
 * Where a channel stands: `connecting` (its first attempt runs), `connected`, `retrying` (an
 * attempt failed; the next one is planned), `refused` (the platform refused the credentials:
 * a config problem, retried slowly) or `deaf` (its connection was open and heard nothing while
 * the platform showed messages, `liveness.ts`; it is being started again).
 */
export type ChannelState = 'connecting' | 'connected' | 'retrying' | 'refused' | 'deaf';

/** One channel for the health page: its state, why it is not connected, since when (ms since the epoch). */
export interface ChannelDetail {
  name: ChannelName;
  state: ChannelState;
  reason?: string;
  /** Failed attempts since it last connected. */
  attempts: number;
  since: number;
  /** How often a deaf connection (open, hearing nothing) was found and opened again; absent: never. */
  deafReconnects?: number;
  /** The last time one was found, and why (ms since the epoch). */
  lastDeaf?: { at: number; reason: string };
}

export interface SupervisedChannel {
  adapter: ChannelAdapter;
  /** How failed starts are retried; without it (the web chat) a failed start fails the gateway's start. */
  reconnect?: ReconnectSettings | undefined;
}

/** What every entry of one supervisor shares: read, never written, by the entries. */
export interface SupervisorRun {
  logger: Logger;
  /** In [0, 1): the backoff's jitter. */
  random: () => number;
  /** Retries ended (`endRetries`, `stop`). */
  stopped(): boolean;
  /** The handler the supervisor was started with. */
  handler(): InboundHandler;
}

/**
 * One supervised adapter and how its attempts fare: its state, why it is not connected and since
 * when, the failures since it last connected, the planned retry and the attempt under way.
 */
export class SupervisedEntry {
  readonly adapter: ChannelAdapter;
  readonly #reconnect: ReconnectSettings | undefined;
  readonly #run: SupervisorRun;
  #state: ChannelState = 'connecting';
  #failures = 0;
  #timer: NodeJS.Timeout | undefined;
  #attempt: Promise<void> | undefined;
  /** A start (after a failure or a lost connection) is planned or running. */
  #restarting = false;
  /** Why it is not connected (the failed start's one line, or the lost connection); none when connected. */
  #reason: string | undefined;
  /** When `state` last changed (ms since the epoch). */
  #since = Date.now();
  #deafReconnects = 0;
  #lastDeaf: { at: number; reason: string } | undefined;

  constructor(channel: SupervisedChannel, run: SupervisorRun) {
    this.adapter = channel.adapter;
    this.#reconnect = channel.reconnect;
    this.#run = run;
    channel.adapter.watch?.((event, error) => this.#connectionChanged(event, error));
  }

  get state(): ChannelState {
    return this.#state;
  }

  detail(): ChannelDetail {
    return {
      name: this.adapter.name,
      state: this.#state,
      ...(this.#reason === undefined ? {} : { reason: this.#reason }),
      attempts: this.#failures,
      since: this.#since,
      ...(this.#lastDeaf === undefined
        ? {}
        : { deafReconnects: this.#deafReconnects, lastDeaf: this.#lastDeaf }),
    };
  }

  /**
   * Starts the adapter once. A failure of an adapter with `reconnect` plans the next attempt
   * (see `#planRetry`) and resolves; one without rethrows (the web chat fails the gateway's start).
   */
  start(): Promise<void> {
    const { logger } = this.#run;
    this.#restarting = true;
    const run = (async () => {
      try {
        await this.adapter.start(this.#run.handler());
      } catch (error) {
        await this.adapter.stop().catch(() => {});
        if (this.#reconnect === undefined) throw error;
        this.#planRetry(this.#reconnect, error);
        return;
      }
      if (this.#failures > 0)
        logger.info(
          { channel: this.adapter.name, attempts: this.#failures + 1 },
          `${this.adapter.name} connected after ${this.#failures + 1} attempts`,
        );
      this.#moveTo('connected');
      this.#failures = 0;
      this.#restarting = false;
      // Stopped while connecting: the stop that is waiting for this attempt closes it.
    })();
    this.#attempt = run;
    return run;
  }

  /** No planned retry. */
  endRetries(): void {
    clearTimeout(this.#timer);
  }

  /** Resolves once the attempt under way (if any) settled. */
  async settled(): Promise<void> {
    await this.#attempt?.catch(() => {});
  }

  /** Moves to `state`, with the reason when that is not `connected`. */
  #moveTo(state: ChannelState, reason?: string): void {
    if (this.#state !== state) this.#since = Date.now();
    this.#state = state;
    this.#reason = state === 'connected' ? undefined : reason;
  }

  /** Counts the failure, says why, and (unless stopped) plans the next attempt with backoff. */
  #planRetry(settings: ReconnectSettings, error: unknown): void {
    const { logger } = this.#run;
    const name = this.adapter.name;
    const refused = this.adapter.tokenRefused?.(error) === true;
    const reason = describeStartFailure(error);
    this.#failures += 1;
    this.#moveTo(refused ? 'refused' : 'retrying', refused ? `refused the credentials (${reason})` : reason);
    if (this.#run.stopped()) return;
    const delayMs = retryDelay(this.#failures, settings, refused, this.#run.random);
    const details = { channel: name, attempts: this.#failures, retryInMs: delayMs };
    if (refused)
      logger.error(
        details,
        `${name} refused the credentials (${reason}); fix channels.${name} (\`switchboard doctor\` checks it); trying again in ${readableWait(delayMs)}, the other channels keep running`,
      );
    else
      logger[this.#failures === 1 ? 'error' : 'warn'](
        details,
        `${name} could not start (${reason}); trying again in ${readableWait(delayMs)}, the other channels keep running`,
      );
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (!this.#run.stopped()) void this.start().catch(() => {});
    }, delayMs);
    // A planned retry must not keep a stopping process alive.
    this.#timer.unref();
  }

  /** What the adapter says of its connection once started (see `ChannelAdapter.watch`). */
  #connectionChanged(event: ConnectionEvent, error?: unknown): void {
    const { logger } = this.#run;
    const name = this.adapter.name;
    if (this.#run.stopped() || this.#restarting || this.#state === 'connecting') return;
    if (event === 'up' && this.#state === 'retrying') {
      this.#moveTo('connected');
      logger.info({ channel: name }, `${name} reconnected`);
    } else if (event === 'down' && this.#state === 'connected') {
      this.#moveTo('retrying', 'lost its connection; reconnecting');
      logger.warn({ channel: name }, `${name} lost its connection; reconnecting`);
    } else if (event === 'lost' && this.#reconnect !== undefined) {
      this.#moveTo('retrying', 'lost its connection for good; starting it again');
      logger.warn(
        { channel: name, err: error },
        `${name} lost its connection for good; starting it again (with backoff while that fails)`,
      );
      this.#restart();
    } else if (event === 'deaf' && this.#reconnect !== undefined) {
      const why = error instanceof Error ? error.message : 'it hears nothing';
      this.#deafReconnects += 1;
      this.#lastDeaf = { at: Date.now(), reason: why };
      this.#moveTo('deaf', why);
      logger.warn(
        { channel: name, reason: why },
        `${name} is connected but deaf (${why}); starting it again`,
      );
      this.#restart();
    }
  }

  /** Stops and starts the adapter at once: the platform may be back already; failures from here on back off. */
  #restart(): void {
    void (async () => {
      this.#restarting = true;
      await this.adapter.stop().catch(() => {});
      if (!this.#run.stopped()) await this.start().catch(() => {});
    })();
  }
}

/** A wait in the unit a reader wants: ms, s, or whole minutes. */
function readableWait(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120_000) return `${Math.round(ms / 100) / 10} s`;
  return `${Math.round(ms / 60_000)} min`;
}
