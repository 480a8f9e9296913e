import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../logging/index.js';
import type { DeliveryRoute } from '../sessions/index.js';

export type RestartKind = 'config-patch' | 'config-apply' | 'restart';

/** Where the note goes after the restart: the chat of the session that asked for it. */
export interface SentinelRoute {
  channel: DeliveryRoute['channel'];
  chatType: 'direct' | 'channel';
  /** The platform chat id (for direct chats, the user id). */
  target: string;
  thread?: string;
}

export interface SentinelPayload {
  kind: RestartKind;
  status: 'ok';
  /** When the restart was committed (ms since the epoch). */
  ts: number;
  sessionKey?: string;
  route?: SentinelRoute;
  /** The owner's note, delivered after the restart. */
  message?: string;
  stats?: Record<string, unknown>;
}

export interface RestartSentinel {
  version: 1;
  payload: SentinelPayload;
}

export const SENTINEL_FILE = 'restart-sentinel.json';

/** Written atomically (temp file, rename), mode 0600: a crash never leaves half a sentinel. */
export async function writeRestartSentinel(stateDir: string, payload: SentinelPayload): Promise<string> {
  await mkdir(stateDir, { recursive: true });
  const file = path.join(stateDir, SENTINEL_FILE);
  const temporary = `${file}.${randomUUID()}.tmp`;
  const sentinel: RestartSentinel = { version: 1, payload };
  await writeFile(temporary, `${JSON.stringify(sentinel, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, file);
  return file;
}

/**
 * Reads and deletes the sentinel, so its note is delivered by one start only. An unreadable
 * or malformed sentinel is deleted with a warning.
 */
export async function takeRestartSentinel(
  stateDir: string,
  logger: Logger,
): Promise<SentinelPayload | undefined> {
  const file = path.join(stateDir, SENTINEL_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      logger.warn({ err: error, file }, 'cannot read the restart sentinel; deleting it');
      await rm(file, { force: true });
    }
    return undefined;
  }
  await rm(file, { force: true });
  try {
    const sentinel = JSON.parse(text) as Partial<RestartSentinel>;
    if (sentinel.version !== 1 || typeof sentinel.payload?.kind !== 'string')
      throw new Error('not a version 1 sentinel');
    return sentinel.payload;
  } catch (error) {
    logger.warn({ err: error, file }, 'the restart sentinel is malformed; deleted it');
    return undefined;
  }
}
