import { errorText } from '../../base/errors/index.js';
/**
 * Why a request to a platform failed, in a few words: the system error code found along the
 * error's causes (ECONNREFUSED, ENOTFOUND, …), else the innermost message. Neither carries a token.
 */
export function networkCode(error: unknown): string {
  let current: unknown = error;
  // Bounded: cause chains can loop.
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    const { code } = current as { code?: unknown };
    if (typeof code === 'string' && depth > 0) return code;
    // fetch will not connect to ports such as 9 or 6000 at all (the Fetch standard's "bad ports").
    if (current.message === 'bad port') return 'a port fetch refuses to use';
    if (!(current.cause instanceof Error)) return current.message;
    current = current.cause;
  }
  return errorText(error);
}

/** The line a channel that could not start is logged with: its error and, under it, the cause. */
export function describeStartFailure(error: unknown): string {
  const message = errorText(error).replace(/\.$/, '');
  if (!(error instanceof Error && error.cause instanceof Error)) return message;
  const cause = networkCode(error);
  return cause === '' || message.includes(cause) ? message : `${message}: ${cause}`;
}
