import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import KeyvRedis, { createClient } from '@keyv/redis';
import KeyvSqlite from '@keyv/sqlite';
import Keyv from 'keyv';
import { SwitchboardError } from '../errors/index.js';
import type { Logger } from '../logging/index.js';
import { createKeyvNamespace } from './keyv-namespace.js';
import type { KeyValueNamespace, Store, StoreKind } from './types.js';

export interface CreateStoreOptions {
  /** `sqlite://<file>`, `memory://` or `redis://…`; undefined means SQLite in the state dir. */
  url: string | undefined;
  stateDir: string;
  logger: Logger;
}

const NAMESPACE_NAME = /^[a-z][a-z0-9-]*$/;
const REDIS_CONNECT_TIMEOUT_MS = 5000;

/**
 * Opens the store named by the config. Each namespace is its own Keyv instance (Keyv keeps
 * the namespace on its adapter, so adapters are not shared between namespaces); with Redis
 * they share one client. Store errors are thrown, never swallowed.
 */
export async function createStore(options: CreateStoreOptions): Promise<Store> {
  const url = options.url ?? `sqlite://${path.join(options.stateDir, 'switchboard.sqlite')}`;
  const scheme = url.slice(0, url.indexOf('://'));
  if (scheme === 'memory')
    return assemble(
      'memory',
      'memory://',
      options.logger,
      () => new Map(),
      async () => {},
    );
  if (scheme === 'sqlite') return openSqlite(url, options.logger);
  if (scheme === 'redis' || scheme === 'rediss') return openRedis(url, options.logger);
  throw new SwitchboardError(
    'STORE_URL_INVALID',
    `store.url: unsupported scheme in "${url}" (use sqlite://, memory:// or redis://)`,
  );
}

async function openSqlite(url: string, logger: Logger): Promise<Store> {
  const file = url.slice('sqlite://'.length);
  if (file === '') throw new SwitchboardError('STORE_URL_INVALID', 'store.url: sqlite:// needs a file path');
  await mkdir(path.dirname(path.resolve(file)), { recursive: true });
  const adapters: KeyvSqlite[] = [];
  const open = () => {
    const adapter = new KeyvSqlite({ uri: `sqlite://${file}`, busyTimeout: 10000, iterationLimit: 500 });
    adapters.push(adapter);
    return adapter;
  };
  // WAL with normal sync: a committed write survives a process crash; one write costs microseconds, not an fsync.
  const first = open();
  try {
    await first.query('PRAGMA journal_mode=WAL');
    await first.query('PRAGMA synchronous=NORMAL');
  } catch (error) {
    throw new SwitchboardError(
      'STORE_UNAVAILABLE',
      `store: cannot open SQLite file ${file}: ${String(error)}`,
      { cause: error },
    );
  }
  let reuse: KeyvSqlite | undefined = first;
  const adapterFor = () => {
    const adapter = reuse ?? open();
    reuse = undefined;
    return adapter;
  };
  return assemble('sqlite', `sqlite://${file}`, logger, adapterFor, async () => {
    await Promise.all(adapters.map((adapter) => adapter.disconnect()));
  });
}

async function openRedis(url: string, logger: Logger): Promise<Store> {
  const client = createClient({
    url,
    socket: {
      connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
      reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 2000),
    },
  });
  const location = describeRedis(url);
  client.on('error', (error: unknown) =>
    logger.warn({ err: error, store: location }, 'redis connection error'),
  );
  let timer: NodeJS.Timeout | undefined;
  let onFirstError: ((error: unknown) => void) | undefined;
  try {
    // The first connection error fails the start at once; later ones are retried by the client.
    await Promise.race([
      client.connect(),
      new Promise((_, reject) => {
        onFirstError = reject;
        client.once('error', reject);
        timer = setTimeout(
          () => reject(new Error(`no answer in ${REDIS_CONNECT_TIMEOUT_MS} ms`)),
          REDIS_CONNECT_TIMEOUT_MS,
        );
      }),
    ]);
  } catch (error) {
    client.destroy();
    throw new SwitchboardError(
      'STORE_UNAVAILABLE',
      `store: cannot connect to ${location}: ${String(error)}`,
      { cause: error },
    );
  } finally {
    clearTimeout(timer);
    if (onFirstError) client.off('error', onFirstError);
  }
  return assemble(
    'redis',
    location,
    logger,
    (name) => new KeyvRedis(client as never, { namespace: name, throwOnErrors: true }),
    async () => {
      if (client.isOpen) await client.close();
    },
    { useKeyPrefix: false },
  );
}

function assemble(
  kind: StoreKind,
  location: string,
  logger: Logger,
  adapterFor: (name: string) => Map<unknown, unknown> | KeyvSqlite | KeyvRedis<unknown>,
  closeAdapters: () => Promise<void>,
  keyvOptions: { useKeyPrefix?: boolean } = {},
): Store {
  const namespaces = new Map<string, KeyValueNamespace<unknown>>();
  let closed = false;
  return {
    kind,
    location,
    namespace<Value>(name: string) {
      if (closed)
        throw new SwitchboardError('GATEWAY_STATE', `store: namespace "${name}" requested after close`);
      if (!NAMESPACE_NAME.test(name))
        throw new SwitchboardError('GATEWAY_STATE', `store: bad namespace name "${name}"`);
      let namespace = namespaces.get(name);
      if (!namespace) {
        const keyv = new Keyv({
          store: adapterFor(name),
          namespace: name,
          throwOnErrors: true,
          ...keyvOptions,
        });
        keyv.on('error', (error: unknown) => logger.error({ err: error, namespace: name }, 'store error'));
        namespace = createKeyvNamespace(keyv);
        namespaces.set(name, namespace);
      }
      return namespace as KeyValueNamespace<Value>;
    },
    async close() {
      if (closed) return;
      closed = true;
      await closeAdapters();
    },
  };
}

function describeRedis(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return 'redis://(unparseable url)';
  }
}
