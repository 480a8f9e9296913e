import type Keyv from 'keyv';
import type { Logger } from '../../base/logging/index.js';
import { indexPosition } from './namespaces.js';
import { PAGE_RANGE, type RedisClient, runScript } from './redis-scripts.js';
import type { NamespaceIndex, PageCursor } from './types.js';

/**
 * The Redis layout of a namespace `<ns>`: each value is the string `<ns>::<key>`, as @keyv/redis
 * writes it (Keyv's `{"value":…}` JSON, the current release's layout); each list of an index is the
 * sorted set `<ns>:index:<group>` (member the key, score the order); `<ns>:indexed` marks that the
 * values written before the namespace had its index were added to its lists. A namespace name has
 * no `:`, so no key of one namespace is a key of another, and `<ns>::*` matches values only.
 */
export const valueKey = (name: string, key: string): string => `${name}::${key}`;
export const listKey = (name: string, group: string): string => `${name}:index:${group}`;
export const indexedKey = (name: string): string => `${name}:indexed`;

/** How many keys one SCAN step asks for (a hint: Redis may return more or fewer). */
const SCAN_COUNT = 1000;

/** Up to `count` members of a list after `after`, in page order, with their orders. */
export async function readRange(
  client: RedisClient,
  list: string,
  after: PageCursor | undefined,
  count: number,
): Promise<PageCursor[]> {
  const args = after ? [String(count), String(after.order), after.key] : [String(count)];
  const flat = (await runScript(client, PAGE_RANGE, [list], args)) as string[];
  const range: PageCursor[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2)
    range.push({ key: flat[i] as string, order: Number(flat[i + 1]) });
  return range;
}

/** The keys of a namespace, a SCAN step at a time (each key once), never KEYS. */
export async function* scanKeys(client: RedisClient, name: string): AsyncGenerator<string[]> {
  const prefix = valueKey(name, '');
  const seen = new Set<string>();
  let cursor = '0';
  do {
    const step = await client.scan(cursor, { MATCH: `${prefix}*`, TYPE: 'string', COUNT: SCAN_COUNT });
    cursor = String(step.cursor);
    // SCAN may return a key twice while the keyspace is rehashed.
    const keys = step.keys.map((key) => key.slice(prefix.length)).filter((key) => !seen.has(key));
    for (const key of keys) seen.add(key);
    if (keys.length > 0) yield keys;
  } while (cursor !== '0');
}

export interface BuildIndexOptions {
  client: RedisClient;
  keyv: Keyv;
  name: string;
  index: NamespaceIndex<unknown>;
  logger: Logger;
}

/**
 * Adds the values written before the namespace had its index (by the current release, or while
 * it was opened without one) to their lists, once: `<ns>:indexed` marks it done. ZADD NX, so a
 * position written or touched meanwhile is kept; a value deleted meanwhile may leave a member
 * without a value, which pages skip.
 */
export async function buildIndex(options: BuildIndexOptions): Promise<void> {
  const { client, keyv, name, index } = options;
  if ((await client.exists(indexedKey(name))) === 1) return;
  let added = 0;
  let scanned = 0;
  for await (const keys of scanKeys(client, name)) {
    if (scanned === 0) options.logger.info({ namespace: name }, 'store: indexing existing entries');
    scanned += keys.length;
    const values = (await keyv.get(keys)) as unknown[];
    const lists = new Map<string, { score: number; value: string }[]>();
    keys.forEach((key, at) => {
      if (values[at] === undefined) return;
      const { group, order } = indexPosition(name, index, key, values[at]);
      const members = lists.get(group) ?? [];
      members.push({ score: order, value: key });
      lists.set(group, members);
    });
    const pipeline = client.multi();
    for (const [group, members] of lists) pipeline.zAdd(listKey(name, group), members, { condition: 'NX' });
    if (lists.size > 0) await pipeline.execAsPipeline();
    added += [...lists.values()].reduce((sum, members) => sum + members.length, 0);
  }
  await client.set(indexedKey(name), new Date().toISOString());
  if (added > 0) options.logger.info({ namespace: name, entries: added }, 'store: indexed existing entries');
}
