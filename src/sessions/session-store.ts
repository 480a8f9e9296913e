import { randomUUID } from 'node:crypto';
import type { DeliveryRoute } from '../messages/index.js';
import type { Store } from '../store/index.js';
import type { NewTranscriptEntry, SessionRecord, TranscriptEntry } from './types.js';

export interface SessionStore {
  get(key: string): Promise<SessionRecord | undefined>;
  /** The session for `key`, created when absent. */
  ensure(key: string, init: { agentId: string; route: DeliveryRoute }): Promise<SessionRecord>;
  /** Appends to the current transcript: one entry write and one record write, whatever its length. */
  append(key: string, entry: NewTranscriptEntry): Promise<TranscriptEntry>;
  /** The current transcript, or only its `last` entries (reads only those). */
  transcript(key: string, options?: { last?: number }): Promise<TranscriptEntry[]>;
  /** Starts a fresh session under the same key; the old transcript stays in the store. */
  reset(key: string): Promise<SessionRecord | undefined>;
  list(): Promise<SessionRecord[]>;
}

/**
 * Session records and transcripts. Transcript entries are stored one key each
 * (`<sessionId>:<seq>`), so appending never rewrites the transcript. Writes to one session
 * are serialized here; records are cached after the first read (one process owns a session).
 */
export function createSessionStore(options: { store: Store; now?: () => Date }): SessionStore {
  const records = options.store.namespace<SessionRecord>('sessions');
  const entries = options.store.namespace<TranscriptEntry>('transcripts');
  const now = options.now ?? (() => new Date());
  const cache = new Map<string, SessionRecord>();
  const tails = new Map<string, Promise<unknown>>();

  /** Runs `task` after every earlier task for the same key. */
  function serialize<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = tails.get(key) ?? Promise.resolve();
    const next = previous.then(task, task);
    const tail = next.catch(() => {});
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return next;
  }

  async function read(key: string): Promise<SessionRecord | undefined> {
    const cached = cache.get(key);
    if (cached) return cached;
    const stored = await records.get(key);
    if (stored) cache.set(key, stored);
    return stored;
  }

  async function write(record: SessionRecord): Promise<void> {
    await records.set(record.key, record);
    cache.set(record.key, record);
  }

  return {
    get: read,
    ensure(key, init) {
      return serialize(key, async () => {
        const existing = await read(key);
        if (existing) return existing;
        const at = now().toISOString();
        const record: SessionRecord = {
          key,
          agentId: init.agentId,
          sessionId: randomUUID(),
          route: init.route,
          createdAt: at,
          lastActivityAt: at,
          transcriptLength: 0,
        };
        await write(record);
        return record;
      });
    },
    append(key, entry) {
      return serialize(key, async () => {
        const record = await read(key);
        if (!record) throw new Error(`append to unknown session ${key}`);
        const at = now().toISOString();
        const stored: TranscriptEntry = { ...entry, seq: record.transcriptLength, at };
        await entries.set(`${record.sessionId}:${stored.seq}`, stored);
        await write({ ...record, transcriptLength: stored.seq + 1, lastActivityAt: at });
        return stored;
      });
    },
    async transcript(key, options = {}) {
      const record = await read(key);
      if (!record) return [];
      const first = Math.max(0, record.transcriptLength - (options.last ?? record.transcriptLength));
      const keys = Array.from(
        { length: record.transcriptLength - first },
        (_, index) => `${record.sessionId}:${first + index}`,
      );
      const found = await entries.getMany(keys);
      return found.filter((entry): entry is TranscriptEntry => entry !== undefined);
    },
    reset(key) {
      return serialize(key, async () => {
        const record = await read(key);
        if (!record) return undefined;
        const at = now().toISOString();
        const fresh: SessionRecord = {
          ...record,
          sessionId: randomUUID(),
          transcriptLength: 0,
          createdAt: at,
          lastActivityAt: at,
        };
        await write(fresh);
        return fresh;
      });
    },
    async list() {
      const all: SessionRecord[] = [];
      for await (const [, record] of records.entries()) all.push(cache.get(record.key) ?? record);
      return all.sort((a, b) => b.lastActivityAt.localeCompare(a.lastActivityAt));
    },
  };
}
