import { isIPv6 } from 'node:net';
import type { FastifyReply } from 'fastify';
import { LRUCache } from 'lru-cache';

/**
 * What a failed token counts against, each with its own count per source: `sign-in` (`POST
 * /api/signin` and a page's `?token=`) and `api` (a wrong bearer token or sign-in cookie on any
 * route that needs one). Guessing in one does not lock a source out of the other.
 */
export type FailureClass = 'sign-in' | 'api';

/** Failed tokens one source may present in `TOKEN_FAILURE_WINDOW_MS`, per class; past them, 429. */
export const TOKEN_FAILURE_LIMIT = 10;
export const TOKEN_FAILURE_WINDOW_MS = 60_000;
/** Sources remembered at once, per limit (the least recently failing are forgotten first). */
const MAX_SOURCES = 10_000;

/**
 * Failed tokens per source and class. A source past the limit is refused (429) in that class until
 * the window that began with its first failure ends, whatever token it sends: a right token is
 * not told apart from a wrong one meanwhile, or the limit would not slow guessing. The token itself
 * is never locked: every other source signs in and calls the API as before.
 */
export interface FailureLimit {
  /** Whole seconds until `source` may present a token again in `kind`; undefined when it may now. */
  retryAfter(kind: FailureClass, source: string): number | undefined;
  /** Counts one failure of `source` in `kind`; true when this one reached the limit. */
  failed(kind: FailureClass, source: string): boolean;
}

export function createFailureLimit(options: { limit?: number; windowMs?: number } = {}): FailureLimit {
  const limit = options.limit ?? TOKEN_FAILURE_LIMIT;
  const windowMs = options.windowMs ?? TOKEN_FAILURE_WINDOW_MS;
  const failures = new LRUCache<string, { count: number }>({
    max: MAX_SOURCES,
    ttl: windowMs,
    ttlAutopurge: false,
  });
  const keyOf = (kind: FailureClass, source: string) => `${kind} ${sourceKey(source)}`;
  return {
    retryAfter(kind, source) {
      const key = keyOf(kind, source);
      const seen = failures.get(key);
      if (seen === undefined || seen.count < limit) return undefined;
      // The cache's clock may round the remaining time up past the window: never say more than it.
      const remaining = Math.min(windowMs, failures.getRemainingTTL(key));
      return Math.max(1, Math.ceil(remaining / 1000));
    },
    failed(kind, source) {
      const key = keyOf(kind, source);
      const seen = failures.get(key);
      // Counted in place: the window runs from the first failure, not the last.
      if (seen) seen.count += 1;
      else failures.set(key, { count: 1 });
      return (seen?.count ?? 1) === limit;
    },
  };
}

/**
 * The source a failure counts against: the address (`request.ip`: the proxy's client with
 * `http.trustProxy`), an IPv4 address mapped into IPv6 as itself, and an IPv6 address by its /64
 * (one host usually holds a whole /64, and could otherwise try from a new address each time).
 */
export function sourceKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped?.[1]) return mapped[1];
  if (!isIPv6(ip)) return ip;
  return `${expandIPv6(ip).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address, `::` expanded (a zone `%eth0` dropped). */
function expandIPv6(ip: string): string[] {
  const [head = '', tail] = (ip.split('%')[0] ?? '').split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array.from({ length: 8 - left.length - right.length }, () => '0');
  return [...left, ...zeros, ...right].map((group) => group.toLowerCase().replace(/^0+(?=.)/, ''));
}

/** The 429 answer: `Retry-After` in seconds and a message saying what to wait for. */
export function refuseLimited(reply: FastifyReply, retryAfter: number, what: string): FastifyReply {
  return reply
    .code(429)
    .header('retry-after', String(retryAfter))
    .send({
      error: 'too_many_requests',
      message: `too many ${what} from this address: try again in ${retryAfter} s`,
    });
}
