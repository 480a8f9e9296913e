import type Database from 'better-sqlite3';
import { SwitchboardError } from '../../base/errors/index.js';
import { indexPosition } from './namespaces.js';
import { unindexedMetaName } from './sqlite-schema.js';
import type { Statements } from './sqlite-statements.js';
import type { NamespaceIndex } from './types.js';

const BACKFILL_CHUNK = 1000;

export interface BackfillOptions {
  db: Database.Database;
  statements: Statements;
  file: string;
  namespace: string;
  index: NamespaceIndex<unknown>;
}

/**
 * Gives every entry of `namespace` without a position (migrated from the legacy layout, or
 * written while the namespace had no index) the position its index computes, in one transaction,
 * and clears the namespace's `unindexed:` mark. Runs on the first indexed open and only when the
 * mark is there, so an open costs one lookup otherwise. A value the index cannot place fails the
 * open with STORE_MIGRATION_FAILED and leaves the mark (the next start tries again).
 */
export function backfillIndex(options: BackfillOptions): number {
  const { statements, namespace } = options;
  const mark = unindexedMetaName(namespace);
  if (statements.isUnindexed.get(mark) === undefined) return 0;
  let placed = 0;
  const fill = options.db.transaction(() => {
    let last: string | undefined;
    for (;;) {
      const rows =
        last === undefined
          ? statements.unpositioned.first.all(namespace, BACKFILL_CHUNK)
          : statements.unpositioned.after.all(namespace, last, BACKFILL_CHUNK);
      for (const row of rows) {
        const position = placeRow(options, row.key, row.value);
        statements.place.run(position.group, position.order, namespace, row.key);
      }
      placed += rows.length;
      if (rows.length < BACKFILL_CHUNK) break;
      last = rows[rows.length - 1]?.key;
    }
    statements.clearUnindexed.run(mark);
  });
  fill();
  return placed;
}

function placeRow(options: BackfillOptions, key: string, json: string): { group: string; order: number } {
  try {
    return indexPosition(options.namespace, options.index, key, JSON.parse(json));
  } catch (cause) {
    throw new SwitchboardError(
      'STORE_MIGRATION_FAILED',
      `store: the index of "${options.namespace}" cannot place entry "${key}" of SQLite file ${options.file}: ${String(cause)}`,
      { cause },
    );
  }
}
