import { randomUUID } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { SwitchboardError } from '../base/errors/index.js';
import type { Logger } from '../base/logging/index.js';
import type { DeliveryRoute } from '../base/messages/index.js';
import type { RestartIntent } from './restart-sentinel.js';

/**
 * The sentinel file's format. Version 2: `{ version: 2, intents }`; version 1 (before the list)
 * held one committed note as `payload` and still loads. Unreadable or malformed files lose their
 * notes with a warning, never fail a start.
 */

/**
 * A route as the sentinel file keeps it (version 1 and 2 alike): `target` is the chat id,
 * `thread` the thread id. Read and written only through `toStored`/`fromStored`; in memory a
 * note's route is the `DeliveryRoute` every layer uses.
 */
interface StoredRoute {
  channel: DeliveryRoute['channel'];
  chatType: DeliveryRoute['chatType'];
  target: string;
  thread?: string;
}

export async function readIntents(file: string, logger: Logger): Promise<RestartIntent[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      logger.warn({ err: error, file }, 'cannot read the restart sentinel; its notes are lost');
    return [];
  }
  try {
    return parseSentinel(JSON.parse(text));
  } catch (error) {
    logger.warn({ err: error, file }, 'the restart sentinel is malformed; its notes are lost');
    return [];
  }
}

/** Version 2 lists intents; version 1 (before this list) held one committed note. */
function parseSentinel(value: unknown): RestartIntent[] {
  return parseStored(value).map(({ route, ...intent }) => ({
    ...intent,
    ...(route === undefined ? {} : { route: fromStored(route) }),
  }));
}

type StoredIntent = Omit<RestartIntent, 'route'> & { route?: StoredRoute };

function parseStored(value: unknown): StoredIntent[] {
  const sentinel = value as { version?: unknown; intents?: unknown; payload?: Record<string, unknown> };
  if (sentinel?.version === 1 && typeof sentinel.payload?.kind === 'string') {
    const { kind, sessionKey, route, message, stats, ts } = sentinel.payload as Partial<StoredIntent> & {
      ts?: number;
    };
    const intent = { kind, sessionKey, route, message, stats, promisedAt: ts ?? Date.now() };
    return [{ ...intent, id: randomUUID(), status: 'committed', owner: 'v1' } as StoredIntent];
  }
  if (sentinel?.version !== 2 || !Array.isArray(sentinel.intents))
    throw new SwitchboardError('GATEWAY_SENTINEL_MALFORMED', 'not a version 2 sentinel');
  return (sentinel.intents as Partial<StoredIntent>[]).filter(
    (intent): intent is StoredIntent =>
      typeof intent?.id === 'string' && typeof intent.kind === 'string' && typeof intent.status === 'string',
  );
}

export async function writeIntents(file: string, intents: readonly RestartIntent[]): Promise<void> {
  if (intents.length === 0) {
    await rm(file, { force: true });
    return;
  }
  const stored = intents.map(({ route, ...intent }) => ({
    ...intent,
    ...(route === undefined ? {} : { route: toStored(route) }),
  }));
  const temporary = `${file}.${randomUUID()}.tmp`;
  await writeFile(temporary, `${JSON.stringify({ version: 2, intents: stored }, null, 2)}\n`, {
    mode: 0o600,
  });
  await rename(temporary, file);
}

function toStored(route: DeliveryRoute): StoredRoute {
  return {
    channel: route.channel,
    chatType: route.chatType,
    target: route.chatId,
    ...(route.threadId === undefined ? {} : { thread: route.threadId }),
  };
}

function fromStored(route: StoredRoute): DeliveryRoute {
  return {
    channel: route.channel,
    chatType: route.chatType,
    chatId: route.target,
    ...(route.thread === undefined ? {} : { threadId: route.thread }),
  };
}
