import { closeSync, existsSync, fsyncSync, openSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { SwitchboardError } from '../../base/errors/index.js';
import type { Logger } from '../../base/logging/index.js';
import { LEGACY_TABLE, SCHEMA_SQL, SCHEMA_VERSION, unindexedMetaName } from './sqlite-schema.js';

const LEGACY_CHUNK = 1000;

export interface MigrationOptions {
  db: Database.Database;
  file: string;
  logger: Logger;
}

interface Converted {
  entries: number;
  namespaces: number;
  expired: number;
  unreadable: number;
  /** The first few of them, for the log. */
  unreadableKeys: string[];
}

/**
 * Migrates a file in the legacy layout (@keyv/sqlite's `keyv` table) to layout version 1: backs
 * it up first (VACUUM INTO, which includes what is still in the WAL; the backup is fsynced and
 * named in a log line), then converts every row, drops the legacy table and sets `schema`, all
 * in one transaction. A failure leaves the file as it was and is STORE_MIGRATION_FAILED naming
 * the file and the backup. Migrated entries have no index position yet: each namespace gets an
 * `unindexed:` mark, and its first indexed open computes them (backfillIndex).
 */
export function migrateLegacyLayout(options: MigrationOptions): void {
  const { db, file, logger } = options;
  const backup = backupPath(file);
  try {
    db.prepare('VACUUM INTO ?').run(backup);
    const fd = openSync(backup, 'r+');
    fsyncSync(fd);
    closeSync(fd);
  } catch (cause) {
    throw new SwitchboardError(
      'STORE_MIGRATION_FAILED',
      `store: cannot back up SQLite file ${file} to ${backup} before migrating it (the file is unchanged): ${String(cause)}`,
      { cause },
    );
  }
  logger.warn({ file, backup }, `store: migrating ${file} to layout ${SCHEMA_VERSION}; backup at ${backup}`);
  let converted: Converted;
  try {
    converted = db.transaction(() => convert(db))();
  } catch (cause) {
    throw new SwitchboardError(
      'STORE_MIGRATION_FAILED',
      `store: cannot migrate SQLite file ${file} to layout ${SCHEMA_VERSION} (the file is unchanged; backup at ${backup}): ${String(cause)}`,
      { cause },
    );
  }
  const { unreadableKeys, ...counts } = converted;
  logger.info({ file, backup, ...counts }, `store: migrated ${file} to layout ${SCHEMA_VERSION}`);
  if (counts.unreadable > 0)
    logger.warn(
      { file, backup, unreadableKeys },
      `store: ${counts.unreadable} legacy row(s) of ${file} were not readable and were left out (they are in ${backup})`,
    );
}

/** The rows of `keyv`, read by rowid in chunks (the connection cannot write while a statement iterates). */
function convert(db: Database.Database): Converted {
  db.exec(SCHEMA_SQL);
  const read = db.prepare<[number, number], { rowid: number; key: string; value: string | null }>(
    `SELECT rowid, key, value FROM ${LEGACY_TABLE} WHERE rowid > ? ORDER BY rowid LIMIT ?`,
  );
  const insert = db.prepare<[string, string, string]>(
    'INSERT INTO entries (namespace, key, value) VALUES (?, ?, ?)',
  );
  const namespaces = new Set<string>();
  const result: Converted = { entries: 0, namespaces: 0, expired: 0, unreadable: 0, unreadableKeys: [] };
  const now = Date.now();
  for (let last = Number.MIN_SAFE_INTEGER; ; ) {
    const rows = read.all(last, LEGACY_CHUNK);
    for (const row of rows) {
      const entry = legacyEntry(row.key, row.value, now);
      if (entry === 'expired') result.expired += 1;
      else if (entry === undefined) {
        result.unreadable += 1;
        if (result.unreadableKeys.length < 20) result.unreadableKeys.push(row.key);
      } else {
        insert.run(entry.namespace, entry.key, entry.json);
        namespaces.add(entry.namespace);
        result.entries += 1;
      }
    }
    if (rows.length < LEGACY_CHUNK) break;
    last = rows[rows.length - 1]?.rowid ?? last;
  }
  const mark = db.prepare<[string]>(
    "INSERT OR IGNORE INTO store_meta (name, value) VALUES (?, 'entries without index positions')",
  );
  for (const namespace of namespaces) mark.run(unindexedMetaName(namespace));
  db.exec(`DROP TABLE ${LEGACY_TABLE}`);
  db.prepare("INSERT OR REPLACE INTO store_meta (name, value) VALUES ('schema', ?)").run(
    String(SCHEMA_VERSION),
  );
  result.namespaces = namespaces.size;
  return result;
}

/**
 * One legacy row: key `<namespace>:<key>`, value keyv's `{"value":…,"expires"?:…}` in
 * @keyv/serialize's encoding (a string starting with `:` was written with one more `:`; a
 * Buffer as `:base64:…`). Expired rows are what keyv would no longer return.
 */
function legacyEntry(
  prefixed: string,
  text: string | null,
  now: number,
): { namespace: string; key: string; json: string } | 'expired' | undefined {
  const colon = prefixed.indexOf(':');
  if (colon <= 0 || text === null) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(text, (_name, value) =>
      typeof value === 'string' ? unescapeKeyvString(value) : value,
    );
  } catch {
    return undefined;
  }
  if (typeof data !== 'object' || data === null || !('value' in data)) return undefined;
  const { value, expires } = data as { value: unknown; expires?: unknown };
  if (typeof expires === 'number' && expires < now) return 'expired';
  const json = JSON.stringify(value);
  if (json === undefined) return undefined;
  return { namespace: prefixed.slice(0, colon), key: prefixed.slice(colon + 1), json };
}

function unescapeKeyvString(value: string): unknown {
  if (value.startsWith(':base64:')) return Buffer.from(value.slice(8), 'base64');
  return value.startsWith(':') ? value.slice(1) : value;
}

/** `<file>.v0-backup-<time>`, never an existing file. */
function backupPath(file: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  for (let attempt = 0; ; attempt += 1) {
    const candidate = `${file}.v0-backup-${stamp}${attempt === 0 ? '' : `-${attempt}`}`;
    if (!existsSync(candidate)) return candidate;
  }
}
