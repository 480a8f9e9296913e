import type Database from 'better-sqlite3';
/** A row of `entries` as `page` reads it. */
export interface PositionedRow {
  key: string;
  value: string;
  order: number;
}

/**
 * Every statement the SQLite store runs, prepared once per connection (the namespace is a
 * parameter, so namespaces share them). Page reads walk `entries_by_index` backwards; the
 * cursor is a row value, so SQLite seeks to it instead of scanning what came before.
 */
export function prepareStatements(db: Database.Database) {
  return {
    get: db
      .prepare<[string, string], string>('SELECT value FROM entries WHERE namespace = ? AND key = ?')
      .pluck(),
    upsert: db.prepare<[string, string, string, string | null, number | null]>(
      `INSERT INTO entries (namespace, key, value, index_group, index_order) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (namespace, key) DO UPDATE
       SET value = excluded.value, index_group = excluded.index_group, index_order = excluded.index_order`,
    ),
    remove: db.prepare<[string, string]>('DELETE FROM entries WHERE namespace = ? AND key = ?'),
    touch: db.prepare<[number, string, string]>(
      'UPDATE entries SET index_order = ? WHERE namespace = ? AND key = ? AND index_group IS NOT NULL',
    ),
    /** Entries of a namespace in key order, in chunks: the first, then those after a key (`entries()`). */
    chunk: chunks<{ key: string; value: string }>(db, 'SELECT key, value FROM entries WHERE namespace = ?'),
    firstPage: db.prepare<[string, string, number], PositionedRow>(
      `SELECT key, value, index_order AS "order" FROM entries WHERE namespace = ? AND index_group = ?
       ORDER BY index_order DESC, key DESC LIMIT ?`,
    ),
    pageAfter: db.prepare<[string, string, number, string, number], PositionedRow>(
      `SELECT key, value, index_order AS "order" FROM entries WHERE namespace = ? AND index_group = ? AND (index_order, key) < (?, ?)
       ORDER BY index_order DESC, key DESC LIMIT ?`,
    ),
    /** Entries still without a position (migrated, or written unindexed), in key order (the backfill). */
    unpositioned: chunks<{ key: string; value: string }>(
      db,
      'SELECT key, value FROM entries WHERE namespace = ? AND index_group IS NULL',
    ),
    place: db.prepare<[string, number, string, string]>(
      'UPDATE entries SET index_group = ?, index_order = ? WHERE namespace = ? AND key = ?',
    ),
    isUnindexed: db.prepare<[string], number>('SELECT 1 FROM store_meta WHERE name = ?').pluck(),
    markUnindexed: db.prepare<[string]>(
      "INSERT OR IGNORE INTO store_meta (name, value) VALUES (?, 'entries without index positions')",
    ),
    clearUnindexed: db.prepare<[string]>('DELETE FROM store_meta WHERE name = ?'),
  };
}

export type Statements = ReturnType<typeof prepareStatements>;

/**
 * A query read in key order, a chunk at a time: `first(namespace, limit)`, then
 * `after(namespace, lastKey, limit)`. Chunks, because better-sqlite3 keeps the connection busy
 * while a statement iterates, and commits must run between two chunks of a listing.
 */
function chunks<Row>(db: Database.Database, select: string) {
  return {
    first: db.prepare<[string, number], Row>(`${select} ORDER BY key LIMIT ?`),
    after: db.prepare<[string, string, number], Row>(`${select} AND key > ? ORDER BY key LIMIT ?`),
  };
}
