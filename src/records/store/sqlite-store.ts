import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { SwitchboardError } from '../../base/errors/index.js';
import type { Logger } from '../../base/logging/index.js';
import { createNamespaces } from './namespaces.js';
import { backfillIndex } from './sqlite-backfill.js';
import { startCheckpointer } from './sqlite-checkpoint.js';
import { createGroupCommit } from './sqlite-commit.js';
import { openDatabase } from './sqlite-layout.js';
import { createSqliteNamespace } from './sqlite-namespace.js';
import { unindexedMetaName } from './sqlite-schema.js';
import { prepareStatements } from './sqlite-statements.js';
import type { Store } from './types.js';

/** Another process holding the write lock blocks this one (the driver is synchronous): briefly. */
const BUSY_TIMEOUT_MS = 1000;

export interface SqliteStoreOptions {
  /** `sqlite://<file>`. */
  url: string;
  logger: Logger;
  busyTimeoutMs?: number;
  /** When the writer itself checkpoints and truncates the WAL (default 64 MiB). */
  walLimitBytes?: number;
}

/**
 * The SQLite store (`sqlite://<file>`): one better-sqlite3 connection, statements prepared once,
 * writes group-committed (sqlite-commit.ts), the file migrated to layout 1 on open
 * (sqlite-layout.ts). Namespaces written without an index are marked, so that a later indexed
 * open computes the positions of their entries (sqlite-backfill.ts).
 */
export async function openSqliteStore(options: SqliteStoreOptions): Promise<Store> {
  const file = options.url.slice('sqlite://'.length);
  if (file === '') throw new SwitchboardError('STORE_URL_INVALID', 'store.url: sqlite:// needs a file path');
  await mkdir(path.dirname(path.resolve(file)), { recursive: true });
  const busyTimeoutMs = options.busyTimeoutMs ?? BUSY_TIMEOUT_MS;
  const db = openDatabase({
    file,
    logger: options.logger,
    busyTimeoutMs,
  });
  const statements = prepareStatements(db);
  const checkpointer = startCheckpointer({
    db,
    file,
    logger: options.logger,
    busyTimeoutMs,
    ...(options.walLimitBytes === undefined ? {} : { walLimitBytes: options.walLimitBytes }),
  });
  const indexed = new Set<string>();
  // Namespaces without an index whose mark a commit holds: it stays until an indexed open (another
  // process: this one fixed each namespace's index at its first open), so it is written once.
  const marked = new Set<string>();
  const commits = createGroupCommit({
    db,
    statements,
    file,
    committed(namespaces) {
      for (const namespace of namespaces) if (!indexed.has(namespace)) marked.add(namespace);
      checkpointer.committed();
    },
    written(namespace) {
      if (!indexed.has(namespace) && !marked.has(namespace))
        statements.markUnindexed.run(unindexedMetaName(namespace));
    },
  });
  const namespaces = createNamespaces((name, index) => {
    if (index) {
      const placed = backfillIndex({ db, statements, file, namespace: name, index });
      if (placed > 0)
        options.logger.info({ file, namespace: name, placed }, 'store: index positions computed');
      indexed.add(name);
    }
    return createSqliteNamespace({ name, index, statements, commits });
  });
  return {
    kind: 'sqlite',
    location: `sqlite://${file}`,
    namespace: (name, namespaceOptions) => namespaces.namespace(name, namespaceOptions),
    async close() {
      if (!namespaces.close()) return;
      commits.close();
      await checkpointer.close();
      db.close();
    },
  };
}
