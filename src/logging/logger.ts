import { createRequire } from 'node:module';
import pino, { type DestinationStream, type Level, type Logger } from 'pino';
import { createSecretScrubber } from '../config/index.js';

export type { Logger };
export type LogLevel = Level | 'silent';

export interface CreateLoggerOptions {
  level?: LogLevel;
  /** Pretty output; defaults to whether stdout is a TTY (and pino-pretty is installed). */
  pretty?: boolean;
  /** Where JSON lines go; defaults to stdout. Tests pass a collecting stream. */
  destination?: DestinationStream;
}

export interface LoggerHandle {
  logger: Logger;
  /** Replaces the secret values that are scrubbed from every log line. */
  setSecrets(secrets: readonly string[]): void;
}

/**
 * The process logger. Secrets are scrubbed from the serialized line itself, so that no
 * field, message or error text can carry one out; children share the scrubbing.
 */
export function createLogger(options: CreateLoggerOptions = {}): LoggerHandle {
  let scrub = createSecretScrubber([]);
  const target =
    options.destination ?? choosePrettyStream(options.pretty) ?? pino.destination({ dest: 1, sync: true });
  const scrubbing: DestinationStream = {
    write(line: string) {
      target.write(scrub(line));
    },
  };
  const logger = pino({ level: options.level ?? 'info', base: { pid: process.pid } }, scrubbing);
  return {
    logger,
    setSecrets(secrets) {
      scrub = createSecretScrubber(secrets);
    },
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
