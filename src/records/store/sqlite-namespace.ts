import { SwitchboardError } from '../../base/errors/index.js';
import { checkOrder, indexPosition, notIndexed, pageLimit } from './namespaces.js';
import type { GroupCommit } from './sqlite-commit.js';
import type { PositionedRow, Statements } from './sqlite-statements.js';
import type { KeyValueNamespace, NamespaceIndex, Page } from './types.js';

/** How many rows `entries()` reads at a time. */
const ENTRIES_CHUNK = 500;

export interface SqliteNamespaceOptions {
  name: string;
  index: NamespaceIndex<unknown> | undefined;
  statements: Statements;
  commits: GroupCommit;
}

/**
 * One namespace of the SQLite store. Values are kept as JSON text (a read returns a copy).
 * Reads answer from the queued writes first, so a caller reads what it wrote before the commit;
 * `page` and `entries` read the table, so they commit what this namespace has queued first.
 */
export function createSqliteNamespace(options: SqliteNamespaceOptions): KeyValueNamespace {
  const { name, index, statements, commits } = options;
  const read = (key: string): unknown => {
    const write = commits.pending(name, key);
    if (write?.kind === 'set') return JSON.parse(write.json);
    if (write?.kind === 'delete') return undefined;
    const json = statements.get.get(name, key);
    return json === undefined ? undefined : JSON.parse(json);
  };
  const commitQueued = () => {
    if (commits.hasPending(name)) commits.flush();
  };

  return {
    get: async (key) => read(key),
    getMany: async (keys) => keys.map(read),
    async set(key, value) {
      const json = JSON.stringify(value);
      if (json === undefined)
        throw new SwitchboardError(
          'GATEWAY_STATE',
          `store: "${name}" set "${key}" to a value JSON cannot hold`,
        );
      const position = index ? indexPosition(name, index, key, value) : undefined;
      await commits.queue(name, key, {
        kind: 'set',
        json,
        group: position?.group ?? null,
        order: position?.order ?? null,
      });
    },
    async delete(key) {
      await commits.queue(name, key, { kind: 'delete' });
    },
    async *entries() {
      let last: string | undefined;
      for (;;) {
        commitQueued();
        const rows =
          last === undefined
            ? statements.chunk.first.all(name, ENTRIES_CHUNK)
            : statements.chunk.after.all(name, last, ENTRIES_CHUNK);
        for (const row of rows) yield [row.key, JSON.parse(row.value)];
        if (rows.length < ENTRIES_CHUNK) return;
        last = rows[rows.length - 1]?.key;
      }
    },
    async page(options) {
      if (!index) throw notIndexed(name);
      const limit = pageLimit(name, options);
      commitQueued();
      const group = options.group ?? '';
      const { after } = options;
      // One row more than asked: whether it exists says whether there is a next page.
      const rows: PositionedRow[] = after
        ? statements.pageAfter.all(name, group, after.order, after.key, limit + 1)
        : statements.firstPage.all(name, group, limit + 1);
      const page: Page<unknown> = {
        entries: rows
          .slice(0, limit)
          .map((row) => ({ key: row.key, value: JSON.parse(row.value), order: row.order })),
      };
      const last = page.entries.at(-1);
      if (last && rows.length > limit) page.next = { order: last.order, key: last.key };
      return page;
    },
    async touch(key, order) {
      if (!index) throw notIndexed(name);
      checkOrder(name, key, order);
      const write = commits.pending(name, key);
      if (write?.kind === 'delete') return;
      // A value still queued moves with it; otherwise only the position is written.
      await commits.queue(name, key, write?.kind === 'set' ? { ...write, order } : { kind: 'touch', order });
    },
  };
}
