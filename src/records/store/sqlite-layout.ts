import Database from 'better-sqlite3';
import { SwitchboardError } from '../../base/errors/index.js';
import type { Logger } from '../../base/logging/index.js';
import { migrateLegacyLayout } from './sqlite-migration.js';
import { LEGACY_TABLE, SCHEMA_SQL, SCHEMA_VERSION } from './sqlite-schema.js';

export interface OpenDatabaseOptions {
  file: string;
  logger: Logger;
  /** How long a statement waits for another process's lock (it blocks this process meanwhile). */
  busyTimeoutMs: number;
}

/**
 * Opens the SQLite file in WAL mode with `synchronous=NORMAL` (a commit is in the WAL, so it
 * survives a process crash, without an fsync per commit) and brings it to layout version 1: a
 * new file gets the schema, a legacy file is migrated (with a backup), a file at version 1 is
 * left as it is, a file of a newer version is refused (STORE_MIGRATION_FAILED).
 */
export function openDatabase(options: OpenDatabaseOptions): Database.Database {
  const { file } = options;
  let db: Database.Database;
  try {
    db = new Database(file, { timeout: options.busyTimeoutMs });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
  } catch (cause) {
    throw new SwitchboardError(
      'STORE_UNAVAILABLE',
      `store: cannot open SQLite file ${file}: ${String(cause)}`,
      {
        cause,
      },
    );
  }
  try {
    prepareLayout(db, options);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

function prepareLayout(db: Database.Database, options: OpenDatabaseOptions): void {
  const { file } = options;
  const tables = new Set(
    db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all(),
  );
  const schema = tables.has('store_meta')
    ? db.prepare<[], string>("SELECT value FROM store_meta WHERE name = 'schema'").pluck().get()
    : undefined;
  if (schema !== undefined && !(Number(schema) <= SCHEMA_VERSION))
    throw new SwitchboardError(
      'STORE_MIGRATION_FAILED',
      `store: SQLite file ${file} has layout ${schema}, newer than this version's ${SCHEMA_VERSION} (it is unchanged)`,
    );
  if (tables.has(LEGACY_TABLE)) migrateLegacyLayout({ db, file, logger: options.logger });
  else if (schema !== String(SCHEMA_VERSION))
    db.transaction(() => {
      db.exec(SCHEMA_SQL);
      db.prepare("INSERT OR REPLACE INTO store_meta (name, value) VALUES ('schema', ?)").run(
        String(SCHEMA_VERSION),
      );
    })();
}
