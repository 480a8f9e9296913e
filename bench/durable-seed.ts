import path from 'node:path';
import { createLogger } from '../src/base/logging/index.js';
import {
  createSessionStore,
  type SessionRecord,
  type SessionStore,
  type TranscriptEntry,
} from '../src/records/sessions/index.js';
import { createStore, type Store } from '../src/records/store/index.js';

/**
 * State for the read and RSS cells of the durable bench, written to the store directly (not
 * through messages): `sessions` web chat sessions (`user-<i>`, one activity time each) and one
 * more session, `long`, with `entries` transcript entries. Records in the current release's
 * shape (`transcriptLength`, `lastActivityAt`), which every later store must still read. Writes
 * are issued together, so a store with group commit takes them in a few transactions.
 */

export const LONG_USER = 'long';
export const webchatKey = (user: string) => `agent:main:webchat:direct:${user}`;
const BATCH = 20_000;
const BASE_TIME = Date.UTC(2026, 0, 1);

export interface Seeded {
  /** The state dir (the store file is `switchboard.sqlite` in it). */
  stateDir: string;
  sessions: number;
  entries: number;
  longKey: string;
  seedMs: number;
}

/** Opens the gateway's default store of `stateDir` (SQLite) and its session store, as the gateway does. */
export async function openSessions(stateDir: string): Promise<{ store: Store; sessions: SessionStore }> {
  const logger = createLogger({
    level: 'warn',
    destination: { write: (line: string) => void process.stderr.write(line) },
  }).logger;
  const store = await createStore({ url: undefined, stateDir, logger });
  return { store, sessions: createSessionStore({ store }) };
}

async function inBatches(count: number, write: (index: number) => Promise<void>): Promise<void> {
  for (let first = 0; first < count; first += BATCH) {
    const writes: Promise<void>[] = [];
    for (let index = first; index < Math.min(count, first + BATCH); index += 1) writes.push(write(index));
    await Promise.all(writes);
  }
}

function record(user: string, at: number, transcriptLength: number): SessionRecord {
  const time = new Date(at).toISOString();
  return {
    key: webchatKey(user),
    agentId: 'main',
    sessionId: `seed-${user}`,
    route: { channel: 'webchat', chatType: 'direct', chatId: user },
    createdAt: time,
    lastActivityAt: time,
    transcriptLength,
  };
}

export async function seedState(dir: string, sessions: number, entries: number): Promise<Seeded> {
  const stateDir = path.join(dir, 'data');
  const started = performance.now();
  // The session store first: it opens its namespaces with their indexes (when it has them).
  const opened = await openSessions(stateDir);
  try {
    const records = opened.store.namespace<SessionRecord>('sessions');
    const transcripts = opened.store.namespace<TranscriptEntry>('transcripts');
    await inBatches(sessions, (index) => {
      const user = `user-${index}`;
      return records.set(webchatKey(user), record(user, BASE_TIME + index * 1000, 0));
    });
    const long = record(LONG_USER, BASE_TIME + (sessions + entries) * 1000, entries);
    await inBatches(entries, (seq) =>
      transcripts.set(`${long.sessionId}:${seq}`, {
        seq,
        at: new Date(BASE_TIME + seq * 1000).toISOString(),
        role: seq % 2 === 0 ? 'user' : 'assistant',
        text: `entry ${seq}: ${'lorem ipsum dolor sit amet '.repeat(4)}`,
        ...(seq % 2 === 0 ? { senderId: `webchat:${LONG_USER}`, messageId: `seed-${seq}` } : {}),
      }),
    );
    await records.set(long.key, long);
  } finally {
    await opened.store.close();
  }
  return { stateDir, sessions, entries, longKey: webchatKey(LONG_USER), seedMs: performance.now() - started };
}
