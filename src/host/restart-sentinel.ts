import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import type { RestartKind, RestartNoteRequest } from '../app/index.js';
import type { Logger } from '../base/logging/index.js';
import { readIntents, writeIntents } from './restart-sentinel-file.js';

export type { RestartKind, RestartNoteRequest };

/** A note's delivery once its restart has happened: the text is fixed, attempts are counted. */
export interface NoteDelivery {
  text: string;
  /** When the note became due (ms since the epoch); delivery gives up a day later. */
  dueAt: number;
  attempts: number;
  nextAttemptAt: number;
  /** Whether the note was added to its session (once, before the first attempt). */
  recorded: boolean;
}

/**
 * A note promised to a chat for after a restart, kept from the promise to its delivery:
 * - `promised`: the restart is scheduled by the host `owner` and has not run;
 * - `committed`: the restart started (or a shell edit waits for the next start);
 * - `due`: the gateway that started after it delivers `delivery.text`, retrying until it is posted.
 */
export interface RestartIntent extends RestartNoteRequest {
  id: string;
  status: 'promised' | 'committed' | 'due';
  /** The gateway host that promised it (`cli` for the shell). */
  owner: string;
  promisedAt: number;
  delivery?: NoteDelivery;
}

export const SENTINEL_FILE = 'restart-sentinel.json';

export function newRestartIntent(request: RestartNoteRequest, owner: string): RestartIntent {
  return { ...request, id: randomUUID(), status: 'promised', owner, promisedAt: Date.now() };
}

/** The intent as a note to deliver now, saying `text`. */
export function dueWith(intent: RestartIntent, text: string, now = Date.now()): RestartIntent {
  return {
    ...intent,
    status: 'due',
    delivery: { text, dueAt: now, attempts: 0, nextAttemptAt: now, recorded: false },
  };
}

export interface RestartSentinelOptions {
  stateDir: string;
  logger: Logger;
}

export type RestartSentinel = ReturnType<typeof createRestartSentinel>;

/**
 * `<stateDir>/restart-sentinel.json`: every restart note not delivered yet. Each change reads,
 * changes and writes the file under a cross-process lock (the shell CLI adds notes while the
 * gateway runs); writes are atomic (temp file, rename, mode 0600) and the file is removed when
 * no note is left. A kill therefore leaves either the old or the new list, never half of one.
 */
export function createRestartSentinel(options: RestartSentinelOptions) {
  const { logger } = options;
  const file = path.join(path.resolve(options.stateDir), SENTINEL_FILE);

  async function update<T>(change: (intents: RestartIntent[]) => { intents: RestartIntent[]; result: T }) {
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const release = await lockfile.lock(file, {
      realpath: false,
      // A lock left by a killed process is taken over after 5 s; the retries wait that long.
      stale: 5000,
      retries: { retries: 60, factor: 1.3, minTimeout: 10, maxTimeout: 400 },
      onCompromised: (error) => logger.warn({ err: error, file }, 'the restart sentinel lock was lost'),
    });
    try {
      const { intents, result } = change(await readIntents(file, logger));
      await writeIntents(file, intents);
      return result;
    } finally {
      await release().catch(() => {});
    }
  }

  const without = (intents: RestartIntent[], ids: readonly string[]) =>
    intents.filter((intent) => !ids.includes(intent.id));

  return {
    file,
    /** The notes as they are now (no lock: a snapshot for reading only). */
    list: () => readIntents(file, logger),
    /** Reads, changes and writes the list under the lock; returns what `change` returns. */
    update,
    /** Adds the intents, or replaces the ones with the same id. */
    record: (intents: readonly RestartIntent[]) =>
      update((current) => ({
        intents: [
          ...without(
            current,
            intents.map((intent) => intent.id),
          ),
          ...intents,
        ],
        result: undefined,
      })),
    /**
     * Removes the intents with these ids and returns them: for a restart that will not happen
     * (refused, or moved to another state dir), whose caller then says so itself.
     */
    take: (ids: readonly string[]) =>
      update((current) => ({
        intents: without(current, ids),
        result: current.filter((intent) => ids.includes(intent.id)),
      })),
  };
}
