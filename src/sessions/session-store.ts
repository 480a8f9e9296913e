import { randomUUID } from 'node:crypto';
import { SwitchboardError } from '../errors/index.js';
import type { DeliveryRoute } from '../messages/index.js';
import type { KeyValueNamespace, Store } from '../store/index.js';
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

interface SessionStoreState {
  records: KeyValueNamespace<SessionRecord>;
  entries: KeyValueNamespace<TranscriptEntry>;
  now: () => Date;
  /** Records read or written by this process (it owns its sessions, so they stay current). */
  cache: Map<string, SessionRecord>;
  /** Per session key, the last write queued: the next one runs after it. */
  tails: Map<string, Promise<unknown>>;
}

/**
 * Session records and transcripts. Transcript entries are stored one key each
 * (`<sessionId>:<seq>`), so appending never rewrites the transcript. Writes to one session
 * are serialized here; records are cached after the first read (one process owns a session).
 */
export function createSessionStore(options: { store: Store; now?: () => Date }): SessionStore {
  const state: SessionStoreState = {
    records: options.store.namespace<SessionRecord>('sessions'),
    entries: options.store.namespace<TranscriptEntry>('transcripts'),
    now: options.now ?? (() => new Date()),
    cache: new Map(),
    tails: new Map(),
  };
  return {
    get: (key) => read(state, key),
    ensure: (key, init) => serialize(state, key, () => ensure(state, key, init)),
    append: (key, entry) => serialize(state, key, () => append(state, key, entry)),
    transcript: (key, options) => transcript(state, key, options),
    reset: (key) => serialize(state, key, () => reset(state, key)),
    async list() {
      const all: SessionRecord[] = [];
      for await (const [, record] of state.records.entries()) all.push(state.cache.get(record.key) ?? record);
      return all.sort((a, b) => b.lastActivityAt.localeCompare(a.lastActivityAt));
    },
  };
}

/** Runs `task` after every earlier task for the same key. */
function serialize<T>(state: SessionStoreState, key: string, task: () => Promise<T>): Promise<T> {
  const previous = state.tails.get(key) ?? Promise.resolve();
  const next = previous.then(task, task);
  const tail = next.catch(() => {});
  state.tails.set(key, tail);
  void tail.then(() => {
    if (state.tails.get(key) === tail) state.tails.delete(key);
  });
  return next;
}

async function read(state: SessionStoreState, key: string): Promise<SessionRecord | undefined> {
  const cached = state.cache.get(key);
  if (cached) return cached;
  const stored = await state.records.get(key);
  if (stored) state.cache.set(key, stored);
  return stored;
}

async function write(state: SessionStoreState, record: SessionRecord): Promise<void> {
  await state.records.set(record.key, record);
  state.cache.set(record.key, record);
}

async function ensure(
  state: SessionStoreState,
  key: string,
  init: { agentId: string; route: DeliveryRoute },
): Promise<SessionRecord> {
  const existing = await read(state, key);
  if (existing) return existing;
  const at = state.now().toISOString();
  const record: SessionRecord = {
    key,
    agentId: init.agentId,
    sessionId: randomUUID(),
    route: init.route,
    createdAt: at,
    lastActivityAt: at,
    transcriptLength: 0,
  };
  await write(state, record);
  return record;
}

async function append(
  state: SessionStoreState,
  key: string,
  entry: NewTranscriptEntry,
): Promise<TranscriptEntry> {
  const record = await read(state, key);
  // Callers ensure the session first: an append without one is a bug.
  if (!record)
    throw new SwitchboardError('SESSION_UNKNOWN', `session store: append to unknown session ${key}`);
  const at = state.now().toISOString();
  const stored: TranscriptEntry = { ...entry, seq: record.transcriptLength, at };
  await state.entries.set(`${record.sessionId}:${stored.seq}`, stored);
  await write(state, { ...record, transcriptLength: stored.seq + 1, lastActivityAt: at });
  return stored;
}

async function transcript(
  state: SessionStoreState,
  key: string,
  options: { last?: number } = {},
): Promise<TranscriptEntry[]> {
  const record = await read(state, key);
  if (!record) return [];
  const first = Math.max(0, record.transcriptLength - (options.last ?? record.transcriptLength));
  const keys = Array.from(
    { length: record.transcriptLength - first },
    (_, index) => `${record.sessionId}:${first + index}`,
  );
  const found = await state.entries.getMany(keys);
  return found.filter((entry): entry is TranscriptEntry => entry !== undefined);
}

async function reset(state: SessionStoreState, key: string): Promise<SessionRecord | undefined> {
  const record = await read(state, key);
  if (!record) return undefined;
  const at = state.now().toISOString();
  const fresh: SessionRecord = {
    ...record,
    sessionId: randomUUID(),
    transcriptLength: 0,
    createdAt: at,
    lastActivityAt: at,
  };
  await write(state, fresh);
  return fresh;
}
