import { createRequire } from 'node:module';
import pino, { type DestinationStream, type Level, type Logger } from 'pino';
import { createSecretScrubber } from '../config/index.js';
import { type LogFile, type LogFileOptions, openLogFile } from './log-file.js';
import { LogRing, type RecentLogLine } from './log-ring.js';

export type { Logger };
export type LogLevel = Level | 'silent';

export interface CreateLoggerOptions {
  level?: LogLevel;
  /** Pretty output; defaults to whether stdout is a TTY (and pino-pretty is installed). */
  pretty?: boolean;
  /** Where JSON lines go; defaults to stdout. Tests pass a collecting stream. */
  destination?: DestinationStream;
  /**
   * Whether a person reads the destination (default: stdout is a TTY). With a log file in use,
   * lines go to the destination only then: under pm2 or systemd they would be logged twice.
   */
  terminal?: boolean;
}

export interface LoggerHandle {
  logger: Logger;
  /**
   * Replaces the secret values that are scrubbed from every log line. `terminalMayShow` are
   * scrubbed from the log file but not from a terminal (the new HTTP token's link, shown once).
   */
  setSecrets(secrets: readonly string[], options?: { terminalMayShow?: readonly string[] }): void;
  /**
   * Writes to this rotated file from now on (undefined: none). The same options keep the open
   * file; other ones close it and open the new one. Rejects, naming `log.file.path`, when the
   * file cannot be written; the previous file is then kept.
   */
  useFile(options: LogFileOptions | undefined): Promise<void>;
  /** Closes the log file, if any: lines go to the destination again. */
  close(): void;
  /** The newest lines (scrubbed as the log file's are) newer than `after`: the Logs page's tail. */
  recent(after?: number): RecentLogLine[];
}

/**
 * The process logger. Secrets are scrubbed from the serialized line itself, so that no
 * field, message or error text can carry one out; children share the scrubbing.
 */
export function createLogger(options: CreateLoggerOptions = {}): LoggerHandle {
  let scrubFile = createSecretScrubber([]);
  let scrubTerminal = scrubFile;
  let file: LogFile | undefined;
  const ring = new LogRing();
  const terminal = options.terminal ?? process.stdout.isTTY === true;
  const target =
    options.destination ?? choosePrettyStream(options.pretty) ?? pino.destination({ dest: 1, sync: true });
  const scrubbing: DestinationStream = {
    write(line: string) {
      const scrubbed = scrubFile(line);
      ring.push(scrubbed);
      file?.write(scrubbed);
      if (!file || terminal) target.write(scrubTerminal(line));
    },
  };
  const logger = pino({ level: options.level ?? 'info', base: { pid: process.pid } }, scrubbing);
  return {
    logger,
    setSecrets(secrets, { terminalMayShow = [] } = {}) {
      scrubFile = createSecretScrubber(secrets);
      scrubTerminal = createSecretScrubber(secrets.filter((secret) => !terminalMayShow.includes(secret)));
    },
    async useFile(fileOptions) {
      if (JSON.stringify(fileOptions) === JSON.stringify(file?.options)) return;
      const next = fileOptions && (await openLogFile(fileOptions));
      const previous = file;
      file = next;
      previous?.close();
    },
    close() {
      file?.close();
      file = undefined;
    },
    recent: (after) => ring.since(after),
  };
}

function choosePrettyStream(pretty: boolean | undefined): DestinationStream | undefined {
  if (!(pretty ?? process.stdout.isTTY)) return undefined;
  try {
    // pino-pretty is a development dependency: without it, plain JSON lines are written.
    const require = createRequire(import.meta.url);
    const createPretty = require('pino-pretty') as (options: object) => DestinationStream;
    return createPretty({ colorize: true, translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname', sync: true });
  } catch {
    return undefined;
  }
}
