import type Keyv from 'keyv';
import type { KeyValueNamespace } from './types.js';

/** What a Keyv instance serves by itself: listing (`entries`, `page`) and `touch` are the store's. */
export type KeyvValues<Value> = Pick<KeyValueNamespace<Value>, 'get' | 'getMany' | 'set' | 'delete'>;

/** Adapts one Keyv instance (one namespace) to the store's key/value operations. */
export function createKeyvNamespace<Value>(keyv: Keyv): KeyvValues<Value> {
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
  };
}
