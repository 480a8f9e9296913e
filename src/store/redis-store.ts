import KeyvRedis, { createClient } from '@keyv/redis';
import { SwitchboardError } from '../errors/index.js';
import type { Logger } from '../logging/index.js';
import { createKeyvStore } from './keyv-store.js';
import type { Store } from './types.js';

const CONNECT_TIMEOUT_MS = 5000;

/**
 * The Redis store (`redis://…`): one client shared by every namespace. The first connection
 * must succeed (a wrong URL fails the start at once); later drops are retried by the client.
 */
export async function openRedisStore(url: string, logger: Logger): Promise<Store> {
  const location = describeRedis(url);
  const client = createClient({
    url,
    socket: {
      connectTimeout: CONNECT_TIMEOUT_MS,
      reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 2000),
    },
  });
  let timer: NodeJS.Timeout | undefined;
  let failFirst: ((error: unknown) => void) | undefined;
  try {
    await Promise.race([
      client.connect(),
      new Promise((_, reject) => {
        failFirst = reject;
        client.once('error', reject);
        timer = setTimeout(
          () => reject(new Error(`no answer in ${CONNECT_TIMEOUT_MS} ms`)),
          CONNECT_TIMEOUT_MS,
        );
      }),
    ]);
  } catch (error) {
    client.destroy();
    throw new SwitchboardError(
      'STORE_UNAVAILABLE',
      `store: cannot connect to ${location}: ${String(error)}`,
      {
        cause: error,
      },
    );
  } finally {
    clearTimeout(timer);
    if (failFirst) client.off('error', failFirst);
  }
  client.on('error', (error: unknown) =>
    logger.warn({ err: error, store: location }, 'redis connection error'),
  );

  return createKeyvStore({
    kind: 'redis',
    location,
    logger,
    // The adapter prefixes keys with its namespace itself, so Keyv must not add a second prefix.
    adapterFor: (name) => ({
      adapter: new KeyvRedis(client as never, { namespace: name, throwOnErrors: true }),
    }),
    useKeyPrefix: false,
    async close() {
      if (client.isOpen) await client.close();
    },
  });
}

/** The URL without credentials, for logs and errors. */
function describeRedis(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return 'redis://(unparseable url)';
  }
}
