import type { SdkErrorClasses } from './model-errors.js';

/**
 * When a failed model request is tried again. We retry ourselves instead of using the SDKs'
 * `maxRetries`: OpenAI's SDK (6.x) sleeps between attempts on a timer that ignores the abort
 * signal and honours any `retry-after` however long, so an aborted call kept the process
 * alive until the timer fired. The policy is the SDKs' own: 408, 409, 429, 5xx (Anthropic's
 * 529 included) and connection failures and timeouts; the server's `x-should-retry` wins;
 * the server's `retry-after-ms` / `retry-after` sets the wait, else exponential backoff from
 * 0.5 s up to 8 s minus up to 25 % jitter.
 */

/**
 * A server asking for a longer wait ends the call instead: blocking a chat turn for minutes helps
 * nobody. After a 429 the model is then skipped until that time (a cooldown, `agents/failover`).
 */
export const MAX_RETRY_WAIT_MS = 60_000;

/** The wait before the next attempt after `error` ended attempt `attempt` (1-based), or undefined: do not retry. */
export function retryDelayMs(error: unknown, attempt: number, sdk: SdkErrorClasses): number | undefined {
  // Connection errors include timeouts; a user abort is an APIError without status.
  if (error instanceof sdk.APIConnectionError) return backoffMs(attempt);
  if (!(error instanceof sdk.APIError)) return undefined;
  const { status, headers } = error as Error & { status?: number; headers?: Headers };
  if (status === undefined) return undefined;
  const verdict = headers?.get('x-should-retry');
  const retryable =
    verdict === 'true' || (verdict !== 'false' && ([408, 409, 429].includes(status) || status >= 500));
  if (!retryable) return undefined;
  const requested = requestedWaitMs(headers);
  if (requested === undefined) return backoffMs(attempt);
  return requested <= MAX_RETRY_WAIT_MS ? requested : undefined;
}

/** Errors a server reports inside an answer stream it had begun (Anthropic: `event: error`) that mean "busy". */
const STREAMED_BUSY_ERRORS = new Set(['overloaded_error', 'rate_limit_error', 'api_error']);

/**
 * Whether a final failure lets the next model of a chain answer (model failover), provided none
 * of its answer reached the chat: the server was reached and overloaded or limited (408, 429, 5xx,
 * Anthropic's 529, or an overload reported inside a begun stream) or was not reached at all
 * (connection failure, timeout). A request the server refused (400, 401, 403, 404, 409, 422, a
 * content filter) would be refused by the next model too, or is the operator's to fix; a stream
 * that broke off for another reason may have been cut by anything.
 */
export function mayFailOver(error: unknown, sdk: SdkErrorClasses, streamBegun: boolean): boolean {
  if (streamBegun) return STREAMED_BUSY_ERRORS.has(streamedErrorType(error, sdk) ?? '');
  if (error instanceof sdk.APIConnectionError) return true;
  if (!(error instanceof sdk.APIError)) return false;
  const { status } = error as Error & { status?: number };
  return status !== undefined && (status === 408 || status === 429 || status >= 500);
}

/** `{ type: 'error', error: { type: 'overloaded_error', … } }`, the body of a streamed error event. */
function streamedErrorType(error: unknown, sdk: SdkErrorClasses): string | undefined {
  if (!(error instanceof sdk.APIError)) return undefined;
  const body = (error as Error & { error?: { error?: { type?: unknown } } }).error;
  const type = body?.error?.type;
  return typeof type === 'string' ? type : undefined;
}

/** The wait a failed request's server asked for, whatever its length. */
export function retryAfterOf(error: unknown, sdk: SdkErrorClasses): number | undefined {
  if (!(error instanceof sdk.APIError)) return undefined;
  return requestedWaitMs((error as Error & { headers?: Headers }).headers);
}

function backoffMs(attempt: number): number {
  const base = Math.min(500 * 2 ** (attempt - 1), 8_000);
  return base * (1 - Math.random() * 0.25);
}

/** The server's `retry-after-ms`, else `retry-after` (seconds or an HTTP date); only positive waits count. */
export function requestedWaitMs(headers: Headers | undefined): number | undefined {
  const milliseconds = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (milliseconds > 0) return milliseconds;
  const header = headers?.get('retry-after') ?? '';
  const seconds = Number.parseFloat(header);
  if (seconds > 0) return seconds * 1000;
  const wait = Date.parse(header) - Date.now();
  return wait > 0 ? wait : undefined;
}
