import path from 'node:path';
import { SwitchboardError } from '../../base/errors/index.js';
import type { Logger } from '../../base/logging/index.js';
import { createMemoryStore } from './memory-store.js';
import { describeRedis } from './redis-url.js';
import { openSqliteStore } from './sqlite-store.js';
import type { Store } from './types.js';

export interface CreateStoreOptions {
  /** `sqlite://<file>`, `memory://` or `redis://…`; undefined means SQLite in the state dir. */
  url: string | undefined;
  stateDir: string;
  logger: Logger;
}

/** Opens the store that `store.url` names (SQLite in the state dir by default). */
export async function createStore(options: CreateStoreOptions): Promise<Store> {
  const url = options.url ?? `sqlite://${path.join(options.stateDir, 'switchboard.sqlite')}`;
  const scheme = url.slice(0, url.indexOf('://'));
  if (scheme === 'memory') return createMemoryStore();
  if (scheme === 'sqlite') return openSqliteStore({ url, logger: options.logger });
  if (scheme === 'redis' || scheme === 'rediss') {
    // Loaded only when configured: the Redis client is a large import a single instance never needs.
    const { openRedisStore } = await import('./redis-store.js');
    return openRedisStore(url, options.logger);
  }
  throw new SwitchboardError(
    'STORE_URL_INVALID',
    `store.url: unsupported scheme in "${url}" (use sqlite://, memory:// or redis://)`,
  );
}

/**
 * The secret parts of a store URL, for the log scrubber: the URL and its password (as written and
 * decoded) when it carries one. A URL without credentials is not secret, so the store's location
 * stays readable in the log.
 */
export function storeUrlSecrets(url: string | undefined): string[] {
  if (url === undefined) return [];
  let password = '';
  try {
    password = new URL(url).password;
  } catch {
    return [url];
  }
  if (password === '') return [];
  const decoded = (() => {
    try {
      return decodeURIComponent(password);
    } catch {
      return password;
    }
  })();
  return [...new Set([url, password, decoded])];
}

/** A store URL as logs and doctor show it: a Redis URL without its credentials. */
export function describeStoreUrl(url: string): string {
  return /^rediss?:\/\//.test(url) ? describeRedis(url) : url;
}
