import { closeSync, constants, fchmodSync, fstatSync, lstatSync, openSync, readdirSync } from 'node:fs';
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
  fd: number;
  reopen(file: string): void;
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
 *
 * A log file is never written through a symbolic link, nor a link's target chmodded: a link (or
 * anything but a regular file) among the files of the base name is refused before opening, the
 * opened descriptor must be the file now at that name (else it is closed and refused), the mode is
 * set on the descriptor, and each rotated file is created with `O_NOFOLLOW` before pino-roll
 * opens it (a link there: the rotation is refused, reported, and the current file goes on).
 */
export async function openLogFile(options: LogFileOptions): Promise<LogFile> {
  const buildRoll = createRequire(import.meta.url)('pino-roll') as BuildRoll;
  let stream: RollStream | undefined;
  try {
    await mkdir(path.dirname(options.path), { recursive: true, mode: 0o700 });
    for (const existing of listLogFiles(options.path)) refuseUnlessRegular(existing);
    stream = await buildRoll({
      file: options.path,
      size: options.size,
      frequency: options.frequency,
      // Every file of this base name counts, also those of earlier processes (pm2 restarts).
      limit: { count: options.keep, removeOtherLogFiles: true },
      sync: true,
      mode: 0o600,
    });
    refuseUnlessOpened(stream);
    // A file kept from an earlier run keeps its mode when reopened: tighten it (the descriptor's
    // file, checked above to be the one at that name: never a link's target).
    fchmodSync(stream.fd, 0o600);
    guardRotations(stream);
  } catch (error) {
    stream?.end();
    throw new Error(`log.file.path: cannot write the log file ${options.path}: ${reason(error)}`);
  }
  const opened: RollStream = stream;
  let reported = false;
  opened.on('error', (error) => {
    // The log cannot carry its own failure: stderr (pm2's error log), once.
    if (!reported)
      process.stderr.write(`switchboard: the log file ${opened.file} failed: ${reason(error)}\n`);
    reported = true;
  });
  return {
    options,
    write: (line) => void opened.write(line),
    close: () => opened.end(),
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

/** Throws naming the file when `file` exists and is not a regular file (a symbolic link above all). */
function refuseUnlessRegular(file: string): void {
  let stats: ReturnType<typeof lstatSync>;
  try {
    stats = lstatSync(file);
  } catch {
    return;
  }
  if (stats.isSymbolicLink())
    throw new Error(`${file} is a symbolic link: remove it (a log file is never written through one)`);
  if (!stats.isFile()) throw new Error(`${file} is not a regular file: remove it`);
}

/** The descriptor pino-roll opened must be the regular file now at its name (no link followed, none swapped in). */
function refuseUnlessOpened(stream: RollStream): void {
  refuseUnlessRegular(stream.file);
  const opened = fstatSync(stream.fd);
  const named = lstatSync(stream.file);
  if (opened.dev !== named.dev || opened.ino !== named.ino)
    throw new Error(`${stream.file} changed while it was opened: remove what replaced it`);
}

/**
 * Before pino-roll reopens at the next file name, that file is created (or opened) here with
 * O_NOFOLLOW, 0600: a symbolic link planted at that name fails (ELOOP) and the rotation with it,
 * which pino-roll emits as the stream's error; the current file is kept.
 */
function guardRotations(stream: RollStream): void {
  const reopen = stream.reopen.bind(stream);
  stream.reopen = (file: string) => {
    const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;
    let fd: number;
    try {
      fd = openSync(file, flags, 0o600);
    } catch (error) {
      throw new Error(`cannot rotate to ${file}: ${reason(error)} (a symbolic link there is refused)`);
    }
    try {
      if (!fstatSync(fd).isFile()) throw new Error(`cannot rotate to ${file}: not a regular file`);
    } finally {
      closeSync(fd);
    }
    reopen(file);
  };
}

/** Node's own message names the code and the path (`EACCES: permission denied, open '…'`). */
function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
