import type KeyvRedis from '@keyv/redis';
import type KeyvSqlite from '@keyv/sqlite';
import Keyv from 'keyv';
import { SwitchboardError } from '../errors/index.js';
import type { Logger } from '../logging/index.js';
import { createKeyvNamespace } from './keyv-namespace.js';
import type { KeyValueNamespace, Store, StoreKind } from './types.js';

const NAMESPACE_NAME = /^[a-z][a-z0-9-]*$/;

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
}

/**
 * A Store of Keyv instances, one per namespace: Keyv keeps the namespace on its adapter, so
 * adapters are never shared between namespaces. Store errors are thrown, never swallowed.
 */
export function createKeyvStore(options: KeyvStoreOptions): Store {
  const namespaces = new Map<string, KeyValueNamespace<unknown>>();
  let closed = false;
  return {
    kind: options.kind,
    location: options.location,
    namespace<Value>(name: string) {
      if (closed)
        throw new SwitchboardError('GATEWAY_STATE', `store: namespace "${name}" requested after close`);
      if (!NAMESPACE_NAME.test(name))
        throw new SwitchboardError('GATEWAY_STATE', `store: bad namespace name "${name}"`);
      let namespace = namespaces.get(name);
      if (!namespace) {
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
        namespace = createKeyvNamespace(keyv, { ready, exclusive: options.exclusive });
        namespaces.set(name, namespace);
      }
      return namespace as KeyValueNamespace<Value>;
    },
    async close() {
      if (closed) return;
      closed = true;
      await options.close();
    },
  };
}
