import type KeyvRedis from '@keyv/redis';
import type KeyvSqlite from '@keyv/sqlite';
import Keyv from 'keyv';
import type { Logger } from '../logging/index.js';
import { createKeyvNamespace, type KeyvValues } from './keyv-namespace.js';
import { createNamespaces, notIndexed } from './namespaces.js';
import type { KeyValueNamespace, NamespaceIndex, Store, StoreKind } from './types.js';

/** What a store needs to build one namespace over its Keyv instance. */
export interface KeyvNamespaceContext {
  name: string;
  keyv: Keyv;
  /** The namespace's index, when its first caller named one. */
  index: NamespaceIndex<unknown> | undefined;
  /** Keyv's own operations (get, getMany, set, delete, entries) on this namespace. */
  values: KeyvValues<unknown>;
}

export interface KeyvStoreOptions {
  kind: StoreKind;
  location: string;
  logger: Logger;
  /** A new adapter for namespace `name`, and what must finish before it is used. */
  adapterFor(name: string): {
    adapter: Map<unknown, unknown> | KeyvSqlite | KeyvRedis<unknown>;
    ready?: Promise<void>;
  };
  close(): Promise<void>;
  /** Runs every write of every namespace through this, when writes must not overlap. */
  exclusive?: <T>(write: () => Promise<T>) => Promise<T>;
  useKeyPrefix?: boolean;
  /**
   * The namespace over Keyv's operations, with the index kept beside them (Redis). Without it
   * the store keeps no index: `page` and `touch` are STORE_NOT_INDEXED.
   */
  namespaceFor?(context: KeyvNamespaceContext): KeyValueNamespace;
}

/**
 * A Store of Keyv instances, one per namespace: Keyv keeps the namespace on its adapter, so
 * adapters are never shared between namespaces. Store errors are thrown, never swallowed.
 */
export function createKeyvStore(options: KeyvStoreOptions): Store {
  const namespaces = createNamespaces((name, index) => {
    const { adapter, ready } = options.adapterFor(name);
    const keyv = new Keyv({
      store: adapter,
      namespace: name,
      throwOnErrors: true,
      ...(options.useKeyPrefix === undefined ? {} : { useKeyPrefix: options.useKeyPrefix }),
    });
    keyv.on('error', (error: unknown) =>
      options.logger.error({ err: error, namespace: name }, 'store error'),
    );
    const values = createKeyvNamespace(keyv, { ready, exclusive: options.exclusive });
    if (options.namespaceFor) return options.namespaceFor({ name, keyv, index, values });
    return {
      ...values,
      page: async () => {
        throw notIndexed(name);
      },
      touch: async () => {
        throw notIndexed(name);
      },
    };
  });
  let closed = false;
  return {
    kind: options.kind,
    location: options.location,
    namespace: (name, namespaceOptions) => namespaces.namespace(name, namespaceOptions),
    async close() {
      if (closed) return;
      closed = true;
      namespaces.close();
      await options.close();
    },
  };
}
