import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';

/**
 * The crash-loop breaker's memory (issue 32 §2): `<stateDir>/start-record.json`, one entry per
 * process start, written at the start, given `readyAt` at ready and `clean` a minute after ready
 * (or at a graceful stop). An entry of an earlier process that is not `clean` is an unclean start:
 * that process never reached ready, or died within a minute of it. Three in five minutes and the
 * next start comes up in safe mode. The file survives SIGKILL because each step is written at once.
 */

export const START_RECORD_FILE = 'start-record.json';
/** How many starts the file keeps (the newest). */
const KEPT = 20;

export interface StartEntry {
  id: string;
  pid: number;
  /** ISO time the start began. */
  at: string;
  readyAt?: string;
  /** Reached ready and lived a minute past it, or stopped gracefully. */
  clean?: boolean;
  /** This start came up in safe mode. */
  safeMode?: boolean;
  /** Why it died, when the process could say (an uncaught error, a failed start), scrubbed. */
  cause?: string;
}

interface StartRecordFile {
  version: 1;
  starts: StartEntry[];
  /** An owner left safe mode then: unclean starts before it no longer count. */
  clearedAt?: string;
}

export interface BreakerLimits {
  /** Unclean starts that trip the breaker (`gateway.crashLoop.uncleanStarts`, 3). */
  threshold: number;
  /** Within this long before the new start (`gateway.crashLoop.windowMs`, 5 min). */
  windowMs: number;
}

/** A start is clean once it lived this long past ready. */
export const CLEAN_AFTER_MS = 60_000;

/** What the breaker decided for a new start. */
export interface BreakerVerdict {
  safeMode: boolean;
  /** The unclean starts counted, oldest first. */
  unclean: StartEntry[];
  /** Why, in one sentence, when safeMode. */
  reason: string;
}

/** Pure: the unclean starts of earlier processes within the window (after any clearing) and the verdict. */
export function breakerVerdict(
  starts: readonly StartEntry[],
  now: number,
  limits: BreakerLimits,
  clearedAt?: string,
): BreakerVerdict {
  const since = Math.max(now - limits.windowMs, clearedAt ? Date.parse(clearedAt) : 0);
  const unclean = starts.filter((entry) => entry.clean !== true && Date.parse(entry.at) >= since);
  const safeMode = unclean.length >= limits.threshold;
  const minutes = Math.round(limits.windowMs / 6000) / 10;
  const reason = safeMode
    ? `${unclean.length} unclean starts in ${minutes} min (${unclean.map(describeStart).join('; ')})`
    : '';
  return { safeMode, unclean, reason };
}

/** One unclean start in words: when, how far it got, and why when known. */
export function describeStart(entry: StartEntry): string {
  const how = entry.readyAt ? 'died within a minute of ready' : 'never reached ready';
  return `${entry.at} pid ${entry.pid}: ${how}${entry.cause ? `: ${entry.cause}` : ''}`;
}

/**
 * This process's entry in the record: `open` reads the earlier starts, decides, and writes this
 * start; `ready`, `clean`, `cause` update it. State private; every write is whole-file and atomic.
 */
export class StartRecord {
  readonly #file: string;
  readonly #entry: StartEntry;
  #data: StartRecordFile = { version: 1, starts: [] };

  private constructor(file: string, entry: StartEntry) {
    this.#file = file;
    this.#entry = entry;
  }

  /** Reads the record, decides on safe mode, and writes this start (not clean yet). */
  static async open(
    stateDir: string,
    limits: BreakerLimits,
    now = Date.now(),
  ): Promise<{ record: StartRecord; verdict: BreakerVerdict }> {
    const file = path.join(stateDir, START_RECORD_FILE);
    const record = new StartRecord(file, {
      id: randomUUID(),
      pid: process.pid,
      at: new Date(now).toISOString(),
    });
    record.#data = await readRecord(file);
    const verdict = breakerVerdict(record.#data.starts, now, limits, record.#data.clearedAt);
    if (verdict.safeMode) record.#entry.safeMode = true;
    record.#data.starts = [...record.#data.starts, record.#entry].slice(-KEPT);
    await record.#write();
    return { record, verdict };
  }

  /** The earlier starts and the clearing, as read at open (plus this one). */
  get starts(): readonly StartEntry[] {
    return this.#data.starts;
  }

  async ready(now = Date.now()): Promise<void> {
    this.#entry.readyAt = new Date(now).toISOString();
    await this.#write();
  }

  async clean(): Promise<void> {
    if (this.#entry.clean) return;
    this.#entry.clean = true;
    await this.#write();
  }

  /** An owner left safe mode: the unclean starts so far stop counting. */
  async clear(now = Date.now()): Promise<void> {
    this.#data.clearedAt = new Date(now).toISOString();
    this.#entry.safeMode = false;
    await this.#write();
  }

  /** The process is dying of `cause`: written synchronously (an uncaught error leaves no later turn). */
  causeSync(cause: string): void {
    this.#entry.cause = cause.slice(0, 300);
    try {
      writeFileAtomic.sync(this.#file, JSON.stringify(this.#data), { mode: 0o600 });
    } catch {
      // Dying anyway: the start stays counted unclean without its cause.
    }
  }

  /** Whole, atomically (write-file-atomic, as config writes): a SIGKILL leaves the old file or the new. */
  async #write(): Promise<void> {
    await writeFileAtomic(this.#file, JSON.stringify(this.#data), { mode: 0o600 });
  }
}

/** The record on disk; a missing or unreadable one is empty (the breaker then counts from now). */
async function readRecord(file: string): Promise<StartRecordFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return { version: 1, starts: [] };
  }
  try {
    const parsed = JSON.parse(text) as Partial<StartRecordFile>;
    const starts = Array.isArray(parsed.starts) ? parsed.starts.filter(isEntry) : [];
    return {
      version: 1,
      starts,
      ...(typeof parsed.clearedAt === 'string' ? { clearedAt: parsed.clearedAt } : {}),
    };
  } catch {
    return { version: 1, starts: [] };
  }
}

function isEntry(value: unknown): value is StartEntry {
  if (value === null || typeof value !== 'object') return false;
  const entry = value as Partial<StartEntry>;
  return typeof entry.id === 'string' && typeof entry.pid === 'number' && typeof entry.at === 'string';
}
