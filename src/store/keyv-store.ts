import Keyv, { type KeyvStoreAdapter } from 'keyv';
import type { Logger } from '../logging/index.js';
import { createKeyvNamespace, type KeyvValues } from './keyv-namespace.js';
import { createNamespaces } from './namespaces.js';
import type { KeyValueNamespace, NamespaceIndex, Store, StoreKind } from './types.js';

/** What a store needs to build one namespace over its Keyv instance. */
export interface KeyvNamespaceContext {
  name: string;
  keyv: Keyv;
  /** The namespace's index, when its first caller named one. */
  index: NamespaceIndex<unknown> | undefined;
  /** Keyv's own operations (get, getMany, set, delete) on this namespace. */
  values: KeyvValues<unknown>;
}

export interface KeyvStoreOptions {
  kind: StoreKind;
  location: string;
  logger: Logger;
  /** A new adapter for namespace `name`. */
  adapterFor(name: string): KeyvStoreAdapter;
  close(): Promise<void>;
  useKeyPrefix?: boolean;
  /** The namespace over Keyv's operations, with its index kept beside them (`page`, `touch`). */
  namespaceFor(context: KeyvNamespaceContext): KeyValueNamespace;
}

/**
 * A Store of Keyv instances, one per namespace (the Redis store): Keyv keeps the namespace on its
 * adapter, so adapters are never shared between namespaces. Store errors are thrown, never
 * swallowed.
 */
export function createKeyvStore(options: KeyvStoreOptions): Store {
  const namespaces = createNamespaces((name, index) => {
    const keyv = new Keyv({
      store: options.adapterFor(name),
      namespace: name,
      throwOnErrors: true,
      ...(options.useKeyPrefix === undefined ? {} : { useKeyPrefix: options.useKeyPrefix }),
    });
    keyv.on('error', (error: unknown) =>
      options.logger.error({ err: error, namespace: name }, 'store error'),
    );
    return options.namespaceFor({ name, keyv, index, values: createKeyvNamespace(keyv) });
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
