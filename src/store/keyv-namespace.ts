import type Keyv from 'keyv';
import { SwitchboardError } from '../errors/index.js';
import type { KeyValueNamespace } from './types.js';

/** What a Keyv instance serves by itself: an index (`page`, `touch`) is the store's to add. */
export type KeyvValues<Value> = Omit<KeyValueNamespace<Value>, 'page' | 'touch'>;

export interface KeyvNamespaceOptions {
  /** Awaited before the first operation (connection settings). */
  ready?: Promise<void> | undefined;
  /** Wraps every write. */
  exclusive?: (<T>(write: () => Promise<T>) => Promise<T>) | undefined;
}

/** Adapts one Keyv instance (one namespace) to the store's key/value operations. */
export function createKeyvNamespace<Value>(
  keyv: Keyv,
  options: KeyvNamespaceOptions = {},
): KeyvValues<Value> {
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
  };
}
