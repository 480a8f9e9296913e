import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import type { Logger } from '../../base/logging/index.js';

/** How often the checkpoint thread is asked to copy the WAL into the database file. */
const CHECKPOINT_INTERVAL_MS = 200;
/** SQLite's own checkpoint threshold (pages), used again when the thread is gone. */
const AUTOCHECKPOINT_PAGES = 1000;
/**
 * Under writes without a pause the thread's checkpoints never catch up with the end of the WAL,
 * so SQLite never starts it over: past this size the writer checkpoints it whole and truncates it.
 */
const WAL_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * The checkpoint thread's code: its own connection to the file, a PASSIVE checkpoint (it never
 * blocks the writer) each time it is asked. Evaluated as CommonJS, so it loads the same
 * better-sqlite3 build whatever runs the gateway (tsx, vitest, dist).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { timeout: workerData.busyTimeoutMs });
db.pragma('synchronous = NORMAL');
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ ok: true });
  } catch (error) {
    parentPort.postMessage({ ok: false, error: String(error) });
  }
});
`;

export interface Checkpointer {
  /** A commit went into the WAL: the next tick checkpoints. */
  committed(): void;
  close(): Promise<void>;
}

export interface CheckpointerOptions {
  db: Database.Database;
  file: string;
  logger: Logger;
  busyTimeoutMs: number;
  /** Default 64 MiB. */
  walLimitBytes?: number;
}

interface CheckpointThread {
  worker: Worker;
  /** Resolves when the thread has ended (closed or failed). */
  exited: Promise<void>;
}

/**
 * Moves WAL checkpoints off the event loop: the connection that commits stops checkpointing
 * (a checkpoint copies pages and fsyncs the file, stalling every write behind it for
 * milliseconds), and a worker thread with its own connection checkpoints what was committed in
 * the last interval. The thread starts with the first commit (an idle gateway pays for none).
 * Durability does not change: a commit is in the WAL before it is acknowledged. When the thread
 * fails, the connection checkpoints by itself again. A WAL past `walLimitBytes` is checkpointed
 * and truncated by the writer (rare: it takes writes without a pause).
 */
export function startCheckpointer(options: CheckpointerOptions): Checkpointer {
  const { db, logger, file } = options;
  db.pragma('wal_autocheckpoint = 0');
  let thread: CheckpointThread | undefined;
  let dirty = false;
  let running = false;
  let failed = false;
  const fallBack = (reason: string) => {
    if (failed) return;
    failed = true;
    clearInterval(timer);
    db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    logger.warn(
      { file, reason },
      'store: the checkpoint thread failed; SQLite checkpoints on the writer again',
    );
  };
  const done = () => {
    running = false;
  };
  const walLimit = options.walLimitBytes ?? WAL_LIMIT_BYTES;
  const timer = setInterval(() => {
    if (!dirty || running || failed || !thread) return;
    try {
      if ((statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0) > walLimit) {
        db.pragma('wal_checkpoint(TRUNCATE)');
        return;
      }
    } catch (error) {
      // A timer's throw would end the process (its folder moved away, a full disk): the writer
      // checkpoints by itself instead, and its own writes report what is wrong with the file.
      fallBack(String(error));
      thread.worker.postMessage('close');
      return;
    }
    dirty = false;
    running = true;
    thread.worker.postMessage('checkpoint');
  }, CHECKPOINT_INTERVAL_MS);
  timer.unref();
  return {
    committed() {
      dirty = true;
      thread ??= startThread(options, { done, fallBack });
    },
    async close() {
      clearInterval(timer);
      if (!thread) return;
      // Held while it closes: an unreferenced thread would let the process exit in this wait
      // (an in-process restart has nothing else running between stop and start).
      thread.worker.ref();
      if (!failed) thread.worker.postMessage('close');
      await thread.exited;
    },
  };
}

function startThread(
  options: CheckpointerOptions,
  events: { done(): void; fallBack(reason: string): void },
): CheckpointThread {
  const { file, logger } = options;
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { driver, file, busyTimeoutMs: options.busyTimeoutMs },
  });
  worker.unref();
  worker.on('message', (result: { ok: boolean; error?: string }) => {
    events.done();
    if (!result.ok) logger.warn({ file, reason: result.error }, 'store: a WAL checkpoint failed (retried)');
  });
  worker.on('error', (error) => events.fallBack(String(error)));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return { worker, exited };
}
