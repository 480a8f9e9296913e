import type Keyv from 'keyv';
import type { KeyValueNamespace } from './types.js';

/** Adapts one Keyv instance (one namespace) to the store's namespace interface. */
export function createKeyvNamespace<Value>(keyv: Keyv): KeyValueNamespace<Value> {
  return {
    async get(key) {
      return (await keyv.get(key)) as Value | undefined;
    },
    async getMany(keys) {
      if (keys.length === 0) return [];
      return (await keyv.get([...keys])) as (Value | undefined)[];
    },
    async set(key, value) {
      await keyv.set(key, value);
    },
    async delete(key) {
      await keyv.delete(key);
    },
    async *entries() {
      if (!keyv.iterator) throw new Error('this store cannot list its entries');
      for await (const [key, value] of keyv.iterator(undefined)) yield [key as string, value as Value];
    },
  };
}
