import type Keyv from 'keyv';
import type { Logger } from '../../base/logging/index.js';
import { createKeyQueue } from './key-queue.js';
import { checkOrder, indexPosition, notIndexed } from './namespaces.js';
import { listKey, scanKeys, valueKey } from './redis-index.js';
import { createRedisPages } from './redis-page.js';
import { type RedisClient, runScript, TOUCH } from './redis-scripts.js';
import type { KeyValueNamespace, NamespaceIndex } from './types.js';

export interface RedisNamespaceOptions {
  client: RedisClient;
  name: string;
  /** The namespace's values: @keyv/redis under a Keyv of its own (keys `<name>::<key>`). */
  keyv: Keyv;
  /** The namespace's index, when its first caller named one. */
  index: NamespaceIndex<unknown> | undefined;
  logger: Logger;
}

/**
 * A Redis namespace: values through Keyv (@keyv/redis), each list of its index a sorted set
 * beside them (`redis-index.ts`). Redis runs each command on its own, so the commands of one
 * write are ordered for a crash between them: the list first and the value then on a write, the
 * value first and the list then on a delete. At worst a member lacks its value or sits in a list
 * its value has left; pages skip both. Writes of one key in this process run one at a time.
 */
export function createRedisNamespace(options: RedisNamespaceOptions): KeyValueNamespace {
  const { client, name, keyv, index, logger } = options;
  const get = async (key: string) => keyv.get(key);
  const getMany = async (keys: readonly string[]) =>
    keys.length === 0 ? [] : ((await keyv.get([...keys])) as unknown[]);
  async function* entries(): AsyncGenerator<[string, unknown]> {
    for await (const keys of scanKeys(client, name)) {
      const found = (await keyv.get(keys)) as unknown[];
      for (const [at, key] of keys.entries()) if (found[at] !== undefined) yield [key, found[at]];
    }
  }
  if (!index)
    return {
      get,
      getMany,
      async set(key, value) {
        await keyv.set(key, value);
      },
      async delete(key) {
        await keyv.delete(key);
      },
      entries,
      page: async () => {
        throw notIndexed(name);
      },
      touch: async () => {
        throw notIndexed(name);
      },
    };

  const writes = createKeyQueue();
  const groupOf = (key: string, value: unknown) => index.group?.(key, value) ?? '';
  const pages = createRedisPages({ client, keyv, name, index, logger, writing: writes.has });
  return {
    get,
    getMany,
    entries,
    page: pages.page,
    async set(key, value) {
      const { group, order } = indexPosition(name, index, key, value);
      await writes.run(key, async () => {
        const [previous] = await Promise.all([
          index.group ? keyv.get(key) : undefined,
          client.zAdd(listKey(name, group), { score: order, value: key }),
        ]);
        await keyv.set(key, value);
        if (previous === undefined) return;
        const was = groupOf(key, previous);
        if (was !== group) await client.zRem(listKey(name, was), key);
      });
    },
    async delete(key) {
      await writes.run(key, async () => {
        const previous = index.group ? await keyv.get(key) : undefined;
        await keyv.delete(key);
        if (index.group && previous === undefined) return;
        await client.zRem(listKey(name, groupOf(key, previous)), key);
      });
    },
    async touch(key, order) {
      checkOrder(name, key, order);
      await writes.run(key, async () => {
        let group = '';
        if (index.group) {
          const value = await keyv.get(key);
          if (value === undefined) return;
          group = groupOf(key, value);
        }
        // Only while the value exists: a touch never adds a member for a deleted entry.
        await runScript(client, TOUCH, [listKey(name, group), valueKey(name, key)], [String(order), key]);
      });
    },
  };
}
