/** How long the first connection (and doctor's probe) waits for Redis. */
export const CONNECT_TIMEOUT_MS = 5000;

/** The URL without credentials, for logs and errors. */
export function describeRedis(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return 'redis://(unparseable url)';
  }
}
