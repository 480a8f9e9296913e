import KeyvRedis, { createClient } from '@keyv/redis';
import Keyv from 'keyv';
import { SwitchboardError } from '../../base/errors/index.js';
import type { Logger } from '../../base/logging/index.js';
import { createNamespaces } from './namespaces.js';
import { createRedisNamespace } from './redis-namespace.js';
import { CONNECT_TIMEOUT_MS, describeRedis } from './redis-url.js';
import type { Store } from './types.js';

/**
 * The Redis store (`redis://…`, with `redis://:password@…` or `redis://user:password@…` for a
 * server that needs one): one client shared by every namespace. The first connection and a PING
 * must succeed (a wrong URL or password, or none where the server needs one, fails the start at
 * once); later drops are retried by the client. The password never reaches a log or an error:
 * both name the server by `describeRedis`. Values go through Keyv (@keyv/redis, the current
 * release's layout); indexes are sorted sets beside them (`redis-namespace.ts`).
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
      // A server with requirepass accepts the connection and refuses the first command (NOAUTH).
      client.connect().then(() => client.ping()),
      new Promise((_, reject) => {
        failFirst = reject;
        client.once('error', reject);
        timer = setTimeout(
          () => reject(unavailable(location, `no answer in ${CONNECT_TIMEOUT_MS} ms`)),
          CONNECT_TIMEOUT_MS,
        );
      }),
    ]);
  } catch (error) {
    client.destroy();
    throw error instanceof SwitchboardError ? error : unavailable(location, String(error), error);
  } finally {
    clearTimeout(timer);
    if (failFirst) client.off('error', failFirst);
  }
  client.on('error', (error: unknown) =>
    logger.warn({ err: error, store: location }, 'redis connection error'),
  );

  // One Keyv per namespace (Keyv keeps the namespace on its adapter). The adapter prefixes keys
  // with its namespace itself, so Keyv must not add a second prefix. Errors are thrown, never
  // swallowed.
  const namespaces = createNamespaces((name, index) => {
    const keyv = new Keyv({
      store: new KeyvRedis(client as never, { namespace: name, throwOnErrors: true }),
      namespace: name,
      throwOnErrors: true,
      useKeyPrefix: false,
    });
    keyv.on('error', (error: unknown) => logger.error({ err: error, namespace: name }, 'store error'));
    return createRedisNamespace({ client, name, keyv, index, logger });
  });
  return {
    kind: 'redis',
    location,
    namespace: (name, options) => namespaces.namespace(name, options),
    async close() {
      if (!namespaces.close()) return;
      if (client.isOpen) await client.close();
    },
  };
}

function unavailable(location: string, why: string, cause?: unknown): SwitchboardError {
  return new SwitchboardError('STORE_UNAVAILABLE', `store: cannot connect to ${location}: ${why}`, { cause });
}
