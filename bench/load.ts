export interface LoadOptions {
  url: string;
  token: string;
  /** The message text: a chat command such as `/status` or free text. */
  text: string;
  /** User names; message i goes to users[i % users.length]. */
  users: readonly string[];
  messages: number;
  /** Requests in flight at once. */
  concurrency: number;
}

export interface LoadResult {
  messages: number;
  /** Responses that were not 200 with at least one reply. */
  failures: number;
  firstFailure: string | undefined;
  elapsedMs: number;
  /** Per-message latency in ms, one entry per message. */
  latencies: Float64Array;
  sessionKeys: Set<string>;
}

interface WebchatResponse {
  sessionKey?: unknown;
  replies?: unknown;
}

/**
 * Sends `messages` web chat messages with at most `concurrency` in flight and measures each
 * from request to parsed response. Node's fetch keeps connections alive, so at most
 * `concurrency` sockets are opened and reused.
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const endpoint = `${options.url}/api/webchat/messages`;
  const headers = { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' };
  const latencies = new Float64Array(options.messages);
  const sessionKeys = new Set<string>();
  let next = 0;
  const { fail, tally } = createFailureTally();

  async function worker(): Promise<void> {
    while (next < options.messages) {
      const index = next++;
      const user = options.users[index % options.users.length] ?? 'local';
      const body = JSON.stringify({ text: options.text, user });
      const started = performance.now();
      try {
        const response = await fetch(endpoint, { method: 'POST', headers, body });
        const text = await response.text();
        latencies[index] = performance.now() - started;
        if (response.status !== 200) {
          fail(`HTTP ${response.status}: ${text.slice(0, 200)}`);
          continue;
        }
        const parsed = JSON.parse(text) as WebchatResponse;
        if (typeof parsed.sessionKey === 'string') sessionKeys.add(parsed.sessionKey);
        if (!Array.isArray(parsed.replies) || parsed.replies.length === 0)
          fail(`no reply: ${text.slice(0, 200)}`);
      } catch (error) {
        latencies[index] = performance.now() - started;
        fail(error instanceof Error ? error.message : String(error));
      }
    }
  }

  const started = performance.now();
  await Promise.all(Array.from({ length: options.concurrency }, () => worker()));
  const elapsedMs = performance.now() - started;
  return { messages: options.messages, ...tally, elapsedMs, latencies, sessionKeys };
}

/** The p-th percentile (0–100) of the values, nearest rank. */
export function percentile(values: Float64Array, p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

/** `percentile` in milliseconds with two decimals, for tables. */
export const ms = (values: Float64Array, p: number) => percentile(values, p).toFixed(2);

export const mean = (values: Float64Array) =>
  values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length;

/**
 * Counts a run's failures and keeps the first one's reason (the rest are usually alike); `tally`
 * is read when the run ends.
 */
export function createFailureTally() {
  const tally: { failures: number; firstFailure: string | undefined } = {
    failures: 0,
    firstFailure: undefined,
  };
  const fail = (reason: string) => {
    tally.failures += 1;
    tally.firstFailure ??= reason;
  };
  return { fail, tally };
}
