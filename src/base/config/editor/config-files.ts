import { appendFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { lock } from 'proper-lockfile';
import writeFileAtomic from 'write-file-atomic';
import { errorText, SwitchboardError } from '../../errors/index.js';

/**
 * The file side of config edits: reading, backups, the atomic write and the audit log. Every
 * failure is a FileSystemError whose message names the file, so that the editor can return it as
 * an expected failure.
 */

/** Backups kept per config file name in `<stateDir>/config-backups/`; older ones are deleted. */
export const BACKUPS_KEPT = 5;
export const BACKUP_DIR = 'config-backups';
export const AUDIT_FILE = 'config-audit.jsonl';

/** An expected failure of the file side of an edit: the editor returns its message, naming the file. */
export class FileSystemError extends SwitchboardError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('CONFIG_FILE_SYSTEM', message, options);
    this.name = 'FileSystemError';
  }
}

/** The config file's text, or undefined when there is no file yet. */
export async function readConfigFile(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw fileError('cannot read the config file', file, error);
  }
}

/**
 * Copies the current text to `<stateDir>/config-backups/<basename>.<ISO time, ':' → '-'>.bak`
 * (mode 0600; `.<n>` before `.bak` when that name is taken), then deletes all but the newest
 * BACKUPS_KEPT of this file's backups. Returns the backup's path.
 */
export async function backupConfigFile(file: string, text: string, stateDir: string, now: Date) {
  const dir = path.join(stateDir, BACKUP_DIR);
  const base = path.basename(file);
  const stamp = now.toISOString().replaceAll(':', '-');
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    let backup = '';
    for (let attempt = 0; backup === ''; attempt += 1) {
      const candidate = path.join(dir, `${base}.${stamp}${attempt === 0 ? '' : `.${attempt}`}.bak`);
      try {
        await writeFile(candidate, text, { mode: 0o600, flag: 'wx' });
        backup = candidate;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 100) throw error;
      }
    }
    await pruneBackups(dir, base);
    return backup;
  } catch (error) {
    throw fileError('cannot write a backup of the config file into', dir, error);
  }
}

async function pruneBackups(dir: string, base: string): Promise<void> {
  const name = new RegExp(
    `^${escapeRegExp(base)}\\.(\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d\\.\\d{3}Z)(?:\\.(\\d+))?\\.bak$`,
  );
  const backups = (await readdir(dir)).flatMap((entry) => {
    const match = name.exec(entry);
    return match ? [{ entry, stamp: match[1] ?? '', attempt: Number(match[2] ?? 0) }] : [];
  });
  backups.sort((a, b) => (a.stamp === b.stamp ? a.attempt - b.attempt : a.stamp < b.stamp ? -1 : 1));
  const stale = backups.slice(0, Math.max(0, backups.length - BACKUPS_KEPT));
  await Promise.all(stale.map((backup) => rm(path.join(dir, backup.entry), { force: true })));
}

/**
 * Replaces the config file atomically: a temp file in the same directory, mode 0600, fsync, rename
 * (write-file-atomic 7, the last major that runs on Node 20). Creates the directory if needed.
 */
export async function writeConfigFile(file: string, text: string): Promise<void> {
  try {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFileAtomic(file, text, { mode: 0o600, fsync: true });
  } catch (error) {
    throw fileError('cannot write the config file', file, error);
  }
}

/**
 * How long a lock whose holder stopped refreshing it (a killed process) blocks others — long enough
 * that a holder starved of CPU on a loaded machine keeps it — and how long an edit waits for the
 * lock: about two minutes of retries, enough for a queue of hundreds of edits.
 */
const LOCK_STALE_MS = 20_000;
const LOCK_RETRIES = { retries: 600, factor: 1.2, minTimeout: 10, maxTimeout: 200, randomize: true };

export interface ConfigFileLock {
  /** Throws FileSystemError when the lock was lost (its holder was too slow to refresh it). */
  assertHeld(): void;
  release(): Promise<void>;
}

/**
 * Takes the cross-process lock on a config file: the directory `<file>.lock` (proper-lockfile 4,
 * mkdir being atomic on every local file system), refreshed while held and taken over once stale.
 * The file itself need not exist; its directory is created.
 */
export async function lockConfigFile(file: string): Promise<ConfigFileLock> {
  let lost: Error | undefined;
  let release: () => Promise<void>;
  try {
    await mkdir(path.dirname(file), { recursive: true });
    release = await lock(file, {
      realpath: false,
      stale: LOCK_STALE_MS,
      retries: LOCK_RETRIES,
      onCompromised: (error) => {
        lost = error;
      },
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') {
      throw new FileSystemError(`another edit holds the lock ${file}.lock; try again`, { cause: error });
    }
    throw fileError('cannot lock the config file', file, error);
  }
  return {
    assertHeld() {
      if (lost) throw new FileSystemError(`lost the lock ${file}.lock (${lost.message})`, { cause: lost });
    },
    async release() {
      // A lost lock is released already (or belongs to another process now): nothing to do.
      if (!lost) await release().catch(() => undefined);
    },
  };
}

/** One audit record: who changed which paths, never a value. */
export interface ConfigAuditRecord {
  ts: string;
  actor: string;
  via: 'tool' | 'command' | 'cli';
  action: 'config.patch' | 'config.apply' | 'config.undo';
  changedPaths: string[];
  previousHash: string;
  hash: string;
  note?: string;
  /** `config.undo`: the number (audit line) of the change whose previous text was written back. */
  undoes?: number;
}

/** Appends one JSON line to `<stateDir>/config-audit.jsonl` (created with mode 0600). */
export async function appendConfigAudit(stateDir: string, record: ConfigAuditRecord): Promise<void> {
  const file = path.join(stateDir, AUDIT_FILE);
  try {
    await mkdir(stateDir, { recursive: true });
    await appendFile(file, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  } catch (error) {
    throw fileError('cannot append to the config audit log', file, error);
  }
}

function fileError(what: string, file: string, error: unknown): FileSystemError {
  const reason = (error as NodeJS.ErrnoException).code ?? errorText(error);
  return new FileSystemError(`${what} ${file}: ${reason}`, { cause: error });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
