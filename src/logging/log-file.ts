import { chmodSync, readdirSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { LogConfig } from '../config/index.js';

/** `log.file` resolved: where the files go and when they rotate. */
export interface LogFileOptions {
  /** Absolute base name: the files are `<base>.<n><ext>` (`switchboard.log` → `switchboard.3.log`). */
  path: string;
  size: string;
  frequency?: 'daily' | 'hourly' | undefined;
  /** Files kept, the current one included. */
  keep: number;
}

/** An open rotating log file; lines written to it are already scrubbed. */
export interface LogFile {
  readonly options: LogFileOptions;
  write(line: string): void;
  close(): void;
}

/** The part of a SonicBoom stream that pino-roll returns and this file uses. */
interface RollStream {
  file: string;
  write(data: string): boolean;
  end(): void;
  on(event: 'error', listener: (error: Error) => void): void;
}
type BuildRoll = (options: object) => Promise<RollStream>;

export const DEFAULT_LOG_FILE = path.join('logs', 'switchboard.log');

/** `log.file` with its defaults, the path made absolute (against the working directory); undefined when off. */
export function logFileOptions(log: LogConfig, stateDir: string): LogFileOptions | undefined {
  if (!log.file) return undefined;
  const file = log.file.path ?? path.join(stateDir, DEFAULT_LOG_FILE);
  return {
    path: path.resolve(file),
    size: log.file.size,
    frequency: log.file.frequency,
    keep: log.file.keep,
  };
}

/**
 * Opens the current file with pino-roll in this thread (no transport worker: nothing to leak
 * across restarts). Writes are synchronous, like the stdout destination, so the last line before
 * an exit is in the file. Every file it creates, rotated ones too, is 0600 in a directory made
 * 0700. A path that cannot be written throws an error naming `log.file.path`.
 */
export async function openLogFile(options: LogFileOptions): Promise<LogFile> {
  const buildRoll = createRequire(import.meta.url)('pino-roll') as BuildRoll;
  let stream: RollStream;
  try {
    await mkdir(path.dirname(options.path), { recursive: true, mode: 0o700 });
    stream = await buildRoll({
      file: options.path,
      size: options.size,
      frequency: options.frequency,
      // Every file of this base name counts, also those of earlier processes (pm2 restarts).
      limit: { count: options.keep, removeOtherLogFiles: true },
      sync: true,
      mode: 0o600,
    });
    // A file kept from an earlier run keeps its mode when reopened: tighten it.
    chmodSync(stream.file, 0o600);
  } catch (error) {
    throw new Error(`log.file.path: cannot write the log file ${options.path}: ${reason(error)}`);
  }
  let reported = false;
  stream.on('error', (error) => {
    // The log cannot carry its own failure: stderr (pm2's error log), once.
    if (!reported)
      process.stderr.write(`switchboard: the log file ${stream.file} failed: ${reason(error)}\n`);
    reported = true;
  });
  return {
    options,
    write: (line) => void stream.write(line),
    close: () => stream.end(),
  };
}

/**
 * The files of a base name, oldest first: `<base>.<n><ext>` beside it, by number (what pino-roll
 * continues from). The last is the one being written now.
 */
export function listLogFiles(base: string): string[] {
  const directory = path.dirname(base);
  const extension = path.extname(base) || '.log';
  const stem = path.basename(base, path.extname(base));
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return [];
  }
  const numbered: { name: string; number: number }[] = [];
  for (const name of names) {
    if (!name.startsWith(`${stem}.`) || !name.endsWith(extension)) continue;
    const middle = name.slice(stem.length + 1, name.length - extension.length);
    if (/^[0-9]+$/.test(middle)) numbered.push({ name, number: Number(middle) });
  }
  return numbered.sort((a, b) => a.number - b.number).map((file) => path.join(directory, file.name));
}

/** Node's own message names the code and the path (`EACCES: permission denied, open '…'`). */
function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
