import type Database from 'better-sqlite3';
import { SwitchboardError } from '../../base/errors/index.js';
import type { Statements } from './sqlite-statements.js';

/** A write waiting for its commit; the last one queued for a key replaces the others. */
export type PendingWrite =
  | { kind: 'set'; json: string; group: string | null; order: number | null }
  | { kind: 'delete' }
  /** A move of an entry whose value is not queued (`touch`). */
  | { kind: 'touch'; order: number };

interface Batch {
  /** namespace → key → the write. */
  writes: Map<string, Map<string, PendingWrite>>;
  waiters: { resolve: () => void; reject: (error: unknown) => void }[];
}

export interface GroupCommitOptions {
  db: Database.Database;
  statements: Statements;
  /** Named in STORE_WRITE_FAILED. */
  file: string;
  /** Runs inside the transaction once for every namespace the batch writes. */
  written(namespace: string): void;
  /** Runs after each commit (the WAL has grown), with the namespaces it wrote. */
  committed(namespaces: Iterable<string>): void;
}

export interface GroupCommit {
  /** The write queued for a key and not yet committed: reads answer from it (read-your-writes). */
  pending(namespace: string, key: string): PendingWrite | undefined;
  hasPending(namespace: string): boolean;
  /** Queues a write; resolves once the transaction that holds it has committed. */
  queue(namespace: string, key: string, write: PendingWrite): Promise<void>;
  /** Commits what is queued, now (before a page or a listing reads the table, and at close). */
  flush(): void;
  /** Commits what is queued and refuses later writes. */
  close(): void;
}

/**
 * Group commit: every write queued in one turn of the event loop goes in one transaction, run
 * at the end of the turn (setImmediate); each write's promise resolves after that commit, so a
 * resolved write is in the WAL and survives SIGKILL. The driver is synchronous, so no write can
 * arrive while a commit runs: the next turn's writes form the next batch. A failed commit rolls
 * the whole batch back, rejects each of its writes with STORE_WRITE_FAILED and leaves the store
 * usable: reads stop seeing the batch with it.
 */
export function createGroupCommit(options: GroupCommitOptions): GroupCommit {
  const { statements } = options;
  let batch: Batch = { writes: new Map(), waiters: [] };
  let scheduled: NodeJS.Immediate | undefined;
  let closed = false;

  const apply = options.db.transaction((writes: Batch['writes']) => {
    for (const [namespace, keys] of writes) {
      for (const [key, write] of keys) {
        if (write.kind === 'set') statements.upsert.run(namespace, key, write.json, write.group, write.order);
        else if (write.kind === 'delete') statements.remove.run(namespace, key);
        else statements.touch.run(write.order, namespace, key);
      }
      options.written(namespace);
    }
  });

  const flush = () => {
    if (scheduled) clearImmediate(scheduled);
    scheduled = undefined;
    const committing = batch;
    if (committing.waiters.length === 0) return;
    batch = { writes: new Map(), waiters: [] };
    try {
      apply(committing.writes);
    } catch (cause) {
      const error = new SwitchboardError(
        'STORE_WRITE_FAILED',
        `store: ${committing.waiters.length} write(s) to SQLite file ${options.file} could not be committed (none of them was kept): ${String(cause)}`,
        { cause },
      );
      for (const waiter of committing.waiters) waiter.reject(error);
      return;
    }
    options.committed(committing.writes.keys());
    for (const waiter of committing.waiters) waiter.resolve();
  };

  return {
    pending: (namespace, key) => batch.writes.get(namespace)?.get(key),
    hasPending: (namespace) => batch.writes.has(namespace),
    queue(namespace, key, write) {
      if (closed)
        return Promise.reject(
          new SwitchboardError('GATEWAY_STATE', `store: write to "${namespace}" after the store was closed`),
        );
      let keys = batch.writes.get(namespace);
      if (!keys) {
        keys = new Map();
        batch.writes.set(namespace, keys);
      }
      keys.set(key, write);
      const written = new Promise<void>((resolve, reject) => batch.waiters.push({ resolve, reject }));
      scheduled ??= setImmediate(flush);
      return written;
    },
    flush,
    close() {
      flush();
      closed = true;
    },
  };
}
