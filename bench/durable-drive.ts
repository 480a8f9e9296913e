import { createFailureTally, percentile } from './load.js';

/**
 * The drivers of the durable bench (durable.ts): a closed loop (N messages, C in flight) and an
 * open loop (a fixed rate), both over any `send` (in-process, HTTP, Hubot), plus medians.
 */

/** Sends message `index` as `user`; resolves with a failure reason, or undefined when answered. */
export type Send = (index: number, user: string) => Promise<string | undefined>;

export interface DriveResult {
  messages: number;
  elapsedMs: number;
  /** Per message, from the call to its answer. */
  latencies: Float64Array;
  failures: number;
  firstFailure: string | undefined;
}

export const userNames = (prefix: string, count: number, first = 0) =>
  Array.from({ length: count }, (_, index) => `${prefix}-${first + index}`);

/** Message i goes to users[i % users.length]; at most `concurrency` in flight. */
export async function driveClosed(
  send: Send,
  options: { users: readonly string[]; messages: number; concurrency: number },
): Promise<DriveResult> {
  const latencies = new Float64Array(options.messages);
  const { fail, tally } = createFailureTally();
  let next = 0;
  async function worker(): Promise<void> {
    while (next < options.messages) {
      const index = next++;
      const started = performance.now();
      const failure = await send(index, options.users[index % options.users.length] ?? 'local').catch(
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
      latencies[index] = performance.now() - started;
      if (failure !== undefined) fail(failure);
    }
  }
  const started = performance.now();
  await Promise.all(Array.from({ length: options.concurrency }, () => worker()));
  return { messages: options.messages, elapsedMs: performance.now() - started, latencies, ...tally };
}

/**
 * Open loop: message i is due at start + i / rate; a timer tick sends every message due by then
 * (whatever is still in flight), so a slow answer does not slow the offered rate. Bounded: with
 * `maxInFlight` unanswered, the next waits (the achieved rate, `perSecond(result)`, then falls
 * below the offered one).
 */
export async function drivePaced(
  send: Send,
  options: { users: readonly string[]; messages: number; perSecond: number; maxInFlight?: number },
): Promise<DriveResult> {
  const latencies = new Float64Array(options.messages);
  const { fail, tally } = createFailureTally();
  const maxInFlight = options.maxInFlight ?? 64;
  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  let next = 0;
  const one = async (index: number) => {
    const sent = performance.now();
    const failure = await send(index, options.users[index % options.users.length] ?? 'local').catch(
      (error: unknown) =>
        error instanceof Error ? `${error.message} ${String(error.cause ?? '')}` : String(error),
    );
    latencies[index] = performance.now() - sent;
    if (failure !== undefined) fail(failure);
  };
  while (next < options.messages) {
    const due = Math.min(
      options.messages,
      Math.floor(((performance.now() - started) * options.perSecond) / 1000) + 1,
    );
    while (next < due && inFlight.size < maxInFlight) {
      const sending = one(next++).finally(() => inFlight.delete(sending));
      inFlight.add(sending);
    }
    if (inFlight.size >= maxInFlight) await Promise.race(inFlight);
    else await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(inFlight);
  return { messages: options.messages, elapsedMs: performance.now() - started, latencies, ...tally };
}

export const perSecond = (result: DriveResult) => (result.messages / result.elapsedMs) * 1000;
export const p = (result: DriveResult, rank: number) => percentile(result.latencies, rank);

/** The median of the finite values (NaN when none). */
export function median(values: readonly number[]): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** Times `read` `times` times (at least once; stops repeating once one call passes `budgetMs`). */
export async function timeReads(read: () => Promise<unknown>, times: number, budgetMs = 2000) {
  const durations: number[] = [];
  let result: unknown;
  for (let round = 0; round < times; round += 1) {
    const started = performance.now();
    result = await read();
    durations.push(performance.now() - started);
    if ((durations.at(-1) ?? 0) > budgetMs) break;
  }
  return { first: durations[0] ?? Number.NaN, median: median(durations), result };
}
