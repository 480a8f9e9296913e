import type Keyv from 'keyv';
import type { Logger } from '../../base/logging/index.js';
import { pageLimit } from './namespaces.js';
import { buildIndex, listKey, readRange, valueKey } from './redis-index.js';
import { REMOVE_MISSING, type RedisClient, runScript } from './redis-scripts.js';
import type { NamespaceIndex, Page, PageCursor, PageOptions } from './types.js';

/**
 * How long a member must have been seen without its value before a page removes it: another
 * instance may be between the two commands of its write (list, then value), which take far less.
 */
export const CLEAN_AFTER_MS = 60_000;
/** At most this many members remembered as seen without a value (the rest wait for a later page). */
const MAX_SUSPECTS = 10_000;

export interface RedisPagesOptions {
  client: RedisClient;
  keyv: Keyv;
  name: string;
  index: NamespaceIndex<unknown>;
  logger: Logger;
  /** Whether this process is writing `key` now (its member may be ahead of its value). */
  writing(key: string): boolean;
}

/**
 * `page` of an indexed Redis namespace: members of the list in page order (a Lua script, ZRANGE
 * by rank), values by one MGET through Keyv. Members without a value or whose value now belongs
 * to another list are skipped and the page is filled from further down, so a page is short only
 * at the end of its list. The first page waits for the index of values written before it.
 */
export function createRedisPages(options: RedisPagesOptions) {
  const { client, keyv, name, index, logger } = options;
  let built: Promise<void> | undefined;
  const suspects = new Map<string, number>();

  const ensureBuilt = () => {
    built ??= buildIndex(options).catch((error: unknown) => {
      built = undefined;
      throw error;
    });
    return built;
  };

  /** Removes members seen without a value CLEAN_AFTER_MS ago and still without one. */
  async function clean(group: string, missing: readonly PageCursor[]): Promise<void> {
    const list = listKey(name, group);
    const now = Date.now();
    const due: PageCursor[] = [];
    for (const member of missing) {
      if (options.writing(member.key)) continue;
      const id = `${list}\u0000${member.key}\u0000${member.order}`;
      const seen = suspects.get(id);
      if (seen === undefined && suspects.size < MAX_SUSPECTS) suspects.set(id, now);
      if (seen === undefined || now - seen < CLEAN_AFTER_MS) continue;
      suspects.delete(id);
      due.push(member);
    }
    if (due.length === 0) return;
    const keys = [list, ...due.map((member) => valueKey(name, member.key))];
    const removed = await runScript(
      client,
      REMOVE_MISSING,
      keys,
      due.flatMap((member) => [member.key, String(member.order)]),
    ).catch((error: unknown) =>
      logger.warn({ err: error, namespace: name, group }, 'store: index clean failed'),
    );
    if (typeof removed === 'number' && removed > 0)
      logger.info({ namespace: name, group, removed }, 'store: removed index members without a value');
  }

  async function page(pageOptions: PageOptions): Promise<Page<unknown>> {
    const limit = pageLimit(name, pageOptions);
    await ensureBuilt();
    const group = pageOptions.group ?? '';
    const result: Page<unknown> = { entries: [] };
    const missing: PageCursor[] = [];
    let after = pageOptions.after;
    for (;;) {
      // One member more than the page needs: whether it exists tells whether a next page does.
      const want = limit - result.entries.length + 1;
      const range = await readRange(client, listKey(name, group), after, want);
      const found =
        range.length === 0 ? [] : ((await keyv.get(range.map((member) => member.key))) as unknown[]);
      for (const [at, member] of range.entries()) {
        const value = found[at];
        if (value === undefined) missing.push(member);
        else if ((index.group?.(member.key, value) ?? '') !== group) continue;
        else if (result.entries.length === limit) {
          const last = result.entries.at(-1) as PageCursor;
          result.next = { order: last.order, key: last.key };
          await clean(group, missing);
          return result;
        } else result.entries.push({ key: member.key, value, order: member.order });
      }
      if (range.length < want) break;
      after = range.at(-1);
    }
    await clean(group, missing);
    return result;
  }

  return { page };
}
