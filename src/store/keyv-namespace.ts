import type Keyv from 'keyv';
import { SwitchboardError } from '../errors/index.js';
import { notIndexed } from './namespaces.js';
import type { KeyValueNamespace } from './types.js';

export interface KeyvNamespaceOptions {
  /** Awaited before the first operation (connection settings). */
  ready?: Promise<void> | undefined;
  /** Wraps every write. */
  exclusive?: (<T>(write: () => Promise<T>) => Promise<T>) | undefined;
}

/** Adapts one Keyv instance (one namespace) to the store's namespace interface. */
export function createKeyvNamespace<Value>(
  keyv: Keyv,
  options: KeyvNamespaceOptions = {},
): KeyValueNamespace<Value> {
  const ready = options.ready ?? Promise.resolve();
  const write = options.exclusive ?? (<T>(task: () => Promise<T>) => task());
  return {
    async get(key) {
      await ready;
      return (await keyv.get(key)) as Value | undefined;
    },
    async getMany(keys) {
      if (keys.length === 0) return [];
      await ready;
      return (await keyv.get([...keys])) as (Value | undefined)[];
    },
    async set(key, value) {
      await ready;
      await write(() => keyv.set(key, value));
    },
    async delete(key) {
      await ready;
      await write(() => keyv.delete(key));
    },
    async *entries() {
      if (!keyv.iterator)
        throw new SwitchboardError('STORE_NOT_LISTABLE', 'this store cannot list its entries');
      await ready;
      for await (const [key, value] of keyv.iterator(undefined)) yield [key as string, value as Value];
    },
    // Until the Redis store keeps sorted sets for its indexes.
    page: async () => {
      throw notIndexed(keyv.namespace ?? '');
    },
    touch: async () => {
      throw notIndexed(keyv.namespace ?? '');
    },
  };
}
