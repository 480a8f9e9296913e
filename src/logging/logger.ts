import { createRequire } from 'node:module';
import pino, { type DestinationStream, type Level, type Logger } from 'pino';

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
  let patterns: string[] = [];
  const target =
    options.destination ?? choosePrettyStream(options.pretty) ?? pino.destination({ dest: 1, sync: true });
  const scrubbing: DestinationStream = {
    write(line: string) {
      let scrubbed = line;
      for (const pattern of patterns) scrubbed = scrubbed.replaceAll(pattern, '[REDACTED]');
      target.write(scrubbed);
    },
  };
  const logger = pino({ level: options.level ?? 'info', base: { pid: process.pid } }, scrubbing);
  return {
    logger,
    setSecrets(secrets) {
      const forms = new Set<string>();
      for (const secret of secrets) {
        if (secret.length < 4) continue;
        forms.add(secret);
        forms.add(JSON.stringify(secret).slice(1, -1));
      }
      // Longest first, so that a secret containing another is replaced whole.
      patterns = [...forms].sort((a, b) => b.length - a.length);
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
