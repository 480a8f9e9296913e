import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import writeFileAtomic from 'write-file-atomic';
import { fail, ok, type Result } from '../base/errors/index.js';
import { isOutcome, type LedgerFile, type UpdatePhase, type UpdateRun } from './types.js';

/** How long a lease lasts without renewal; the updater renews it every LEASE_MS / 4. */
export const LEASE_MS = 30_000;
const HISTORY = 20;

/** `<stateDir>/update/`: the ledger, the runs' worktrees, checkpoints and kept builds. */
export function updateDir(stateDir: string): string {
  return path.join(path.resolve(stateDir), 'update');
}

/** Whether a process with this pid is alive (a zombie or another user's process counts as alive). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A run still going: not an outcome, its holder alive and its lease not expired (a hung holder's lapses). */
export function isActive(run: UpdateRun | undefined, now = Date.now()): boolean {
  if (run === undefined || isOutcome(run.phase)) return false;
  return run.lease.expiresAt > now && processAlive(run.lease.pid);
}

/** A run that is neither active nor ended: its updater was killed or hung. */
export function isStale(run: UpdateRun | undefined, now = Date.now()): run is UpdateRun {
  return run !== undefined && !isOutcome(run.phase) && !isActive(run, now);
}

export type UpdateLedger = ReturnType<typeof createUpdateLedger>;

/**
 * `<stateDir>/update/ledger.json`: one update run at a time, durable. Every change reads, changes
 * and writes the file under a cross-process lock (the gateway, the CLI and the updater write it),
 * atomically (temp file, rename, 0600): a SIGKILL leaves the old or the new file.
 */
export function createUpdateLedger(options: { stateDir: string }) {
  const file = path.join(updateDir(options.stateDir), 'ledger.json');

  async function read(): Promise<LedgerFile> {
    const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (text === undefined) return { version: 1, history: [], rolledBack: [] };
    const parsed = JSON.parse(text) as LedgerFile;
    return {
      version: 1,
      history: parsed.history ?? [],
      rolledBack: parsed.rolledBack ?? [],
      run: parsed.run,
    };
  }

  async function change<T>(edit: (ledger: LedgerFile) => { ledger: LedgerFile; result: T }): Promise<T> {
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const release = await lockfile.lock(file, {
      realpath: false,
      stale: 5000,
      retries: { retries: 60, factor: 1.3, minTimeout: 10, maxTimeout: 400 },
    });
    try {
      const { ledger, result } = edit(await read());
      await writeFileAtomic(file, `${JSON.stringify(ledger, null, 2)}\n`, { mode: 0o600 });
      return result;
    } finally {
      await release().catch(() => {});
    }
  }

  /** Changes the current run (when it is `id`); resolves to it as written. */
  function changeRun(id: string, edit: (run: UpdateRun) => UpdateRun): Promise<UpdateRun> {
    return change((ledger) => {
      if (ledger.run?.id !== id)
        throw new Error(`update ledger ${file}: run ${id} is no longer the current run`);
      const run = edit(ledger.run);
      return { ledger: { ...ledger, run }, result: run };
    });
  }

  return {
    file,
    read,
    /**
     * Makes `run` the current run, unless another is active: then the refusal names it. A stale
     * run (holder gone or lease expired) does not block (the caller ends it first: `recover`).
     */
    begin(run: UpdateRun): Promise<Result<UpdateRun>> {
      return change<Result<UpdateRun>>((ledger) => {
        const current = ledger.run;
        if (current && isActive(current))
          return {
            ledger,
            result: fail(
              `an update is already running (run ${current.id} to ${current.to.commit.slice(0, 7)}, phase ${current.phase}, asked by ${current.by}); see update.status`,
            ),
          };
        const history = current ? [current, ...ledger.history].slice(0, HISTORY) : ledger.history;
        return { ledger: { ...ledger, history, run }, result: ok(run) };
      });
    },
    /** Records that the run reached `phase` now (and how long the phase before it took). */
    advance(id: string, phase: UpdatePhase, fields: Partial<UpdateRun> = {}): Promise<UpdateRun> {
      return changeRun(id, (run) => {
        const now = Date.now();
        const last = run.phases.at(-1);
        const durations = last ? { ...run.durations, [last.phase]: now - last.at } : run.durations;
        return { ...run, ...fields, phase, phases: [...run.phases, { phase, at: now }], durations };
      });
    },
    /** Changes fields of the run without a new phase. */
    set(id: string, fields: Partial<UpdateRun>): Promise<UpdateRun> {
      return changeRun(id, (run) => ({ ...run, ...fields }));
    },
    /** The holder renews its lease. */
    renew(id: string, pid = process.pid): Promise<UpdateRun> {
      return changeRun(id, (run) => ({ ...run, lease: { pid, expiresAt: Date.now() + LEASE_MS } }));
    },
    /** Remembers a version that rolled back. */
    rememberRolledBack(commit: string): Promise<void> {
      return change((ledger) => ({
        ledger: { ...ledger, rolledBack: [...new Set([...ledger.rolledBack, commit])] },
        result: undefined,
      }));
    },
  };
}
