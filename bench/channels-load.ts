import { createFailureTally } from './load.js';

/**
 * The pieces of the channel bench (channels.ts): a watch that timestamps reply posts as a fake
 * platform records them, and a driver that sends messages channel by channel and matches each
 * reply to its message.
 */

/** A reply post as the fake platform received it, reduced to what the bench checks. */
export interface ReplyPost {
  /** The message it answers: Slack `thread_ts`, Discord `message_reference.message_id`. */
  key: string | undefined;
  channel: string;
  text: string;
}

interface Arrival {
  post: ReplyPost;
  /** `performance.now()` when the fake recorded the post. */
  at: number;
}

/**
 * Replies by the message they answer. The fakes have no listener API, so `observe` wraps `push`
 * of the fake's own record array (calls / posted) on this instance: the time is taken the moment
 * the fake records the post, with no polling and no scan of the growing array.
 */
export class ReplyWatch {
  private readonly waiting = new Map<string, (arrival: Arrival | undefined) => void>();
  /** Posts nobody waited for: a second reply to one message, a reply after its timeout, or no key. */
  strays = 0;
  firstStray: string | undefined;

  observe<T>(records: T[], toReply: (record: T) => ReplyPost | undefined): void {
    const push = records.push.bind(records);
    records.push = (...items: T[]) => {
      const length = push(...items);
      const at = performance.now();
      for (const item of items) {
        const post = toReply(item);
        if (post) this.arrived({ post, at });
      }
      return length;
    };
  }

  private arrived(arrival: Arrival): void {
    const settle = arrival.post.key === undefined ? undefined : this.waiting.get(arrival.post.key);
    if (!settle) {
      this.strays += 1;
      this.firstStray ??= JSON.stringify(arrival.post).slice(0, 200);
      return;
    }
    settle(arrival);
  }

  /** Stops waiting for `key` (its `expect` resolves undefined at once). */
  forget(key: string): void {
    this.waiting.get(key)?.(undefined);
  }

  /** Resolves with the first reply to `key`; undefined after `timeoutMs`. Call before sending. */
  expect(key: string, timeoutMs: number): Promise<Arrival | undefined> {
    return new Promise((resolve) => {
      const settle = (arrival: Arrival | undefined) => {
        clearTimeout(timer);
        this.waiting.delete(key);
        resolve(arrival);
      };
      const timer = setTimeout(() => settle(undefined), timeoutMs);
      this.waiting.set(key, settle);
    });
  }
}

export interface BenchMessage {
  /** Unique over the whole run (warm-up included): ids and timestamps derive from it. */
  serial: number;
  /** What the reply will refer to (Slack ts, Discord message id). */
  key: string;
  channel: number;
  user: number;
}

export interface ChannelDriver {
  keyOf(serial: number): string;
  /** The platform channel id of channel index `channel`, as the reply post names it. */
  channelId(channel: number): string;
  /** Hands the message to the fake; resolves once the fake has handed it on (ack, HTTP 200, sent). */
  send(message: BenchMessage): Promise<void>;
}

export interface ChannelRunOptions {
  driver: ChannelDriver;
  watch: ReplyWatch;
  messages: number;
  channels: number;
  users: number;
  /** The first serial to use. */
  firstSerial: number;
  expectedText: string;
  timeoutMs: number;
  /** Called after every `progressEvery` messages answered (or failed). */
  onProgress?: (done: number) => void;
  progressEvery?: number;
}

export interface ChannelRunResult {
  messages: number;
  elapsedMs: number;
  /** Handed to the fake → reply recorded by the fake, per answered message (failures excluded). */
  latencies: Float64Array;
  failures: number;
  firstFailure: string | undefined;
}

/**
 * Sends `messages` messages: message i goes to channel i % channels from user
 * ⌊i / channels⌋ % users, so every user posts in every channel. Each channel sends its next
 * message once the reply to the previous one is posted: `channels` messages in flight.
 */
export async function runChannels(options: ChannelRunOptions): Promise<ChannelRunResult> {
  const { driver, watch, channels } = options;
  const latencies: number[] = [];
  const { fail, tally } = createFailureTally();
  let done = 0;

  async function channelWorker(channel: number): Promise<void> {
    for (let index = channel; index < options.messages; index += channels) {
      const serial = options.firstSerial + index;
      const message: BenchMessage = {
        serial,
        key: driver.keyOf(serial),
        channel,
        user: Math.floor(index / channels) % options.users,
      };
      const reply = watch.expect(message.key, options.timeoutMs);
      const started = performance.now();
      try {
        await driver.send(message);
        const arrival = await reply;
        if (!arrival) fail(`no reply to ${message.key} within ${options.timeoutMs} ms`);
        else if (
          arrival.post.text !== options.expectedText ||
          arrival.post.channel !== driver.channelId(channel)
        )
          fail(`unexpected reply to ${message.key}: ${JSON.stringify(arrival.post).slice(0, 200)}`);
        else latencies.push(arrival.at - started);
      } catch (error) {
        watch.forget(message.key);
        fail(`${message.key}: ${error instanceof Error ? error.message : String(error)}`);
      }
      done += 1;
      if (options.progressEvery && done % options.progressEvery === 0) options.onProgress?.(done);
    }
  }

  const started = performance.now();
  await Promise.all(Array.from({ length: channels }, (_, channel) => channelWorker(channel)));
  return {
    messages: options.messages,
    elapsedMs: performance.now() - started,
    latencies: Float64Array.from(latencies),
    ...tally,
  };
}
