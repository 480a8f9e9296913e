import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { SwitchboardError } from '../../base/errors/index.js';
import type { DeliveryRoute } from '../../base/messages/index.js';
import { createKeyQueue, type Store } from '../store/index.js';
import { SESSION_RECORD_INDEX, TRANSCRIPT_INDEX, transcriptEntryKey } from './session-indexes.js';
import { listSessions, readTranscript } from './session-reads.js';
import { loadRecord, readRecord, type SessionStoreState, serialize, writeRecord } from './session-records.js';
import type {
  NewTranscriptEntry,
  SessionListOptions,
  SessionPage,
  SessionRecord,
  TranscriptEntry,
  TranscriptReadOptions,
} from './types.js';

export interface SessionStore {
  get(key: string): Promise<SessionRecord | undefined>;
  /** The session for `key`, created when absent. */
  ensure(key: string, init: { agentId: string; route: DeliveryRoute }): Promise<SessionRecord>;
  /**
   * Appends to the current transcript: writes the entry and moves the session to the top of the
   * list (`touch`); the record itself is not rewritten, whatever the transcript's length.
   */
  append(key: string, entry: NewTranscriptEntry): Promise<TranscriptEntry>;
  /** The current transcript, oldest first, or its `last` entries below `before` (reads only those). */
  transcript(key: string, options?: TranscriptReadOptions): Promise<TranscriptEntry[]>;
  /**
   * The session's latest compaction entry (`TranscriptEntry.compaction`), however far back: the
   * record points at it. Undefined when the current session id has none.
   */
  compaction(key: string): Promise<TranscriptEntry | undefined>;
  /** Starts a fresh session under the same key; the old transcript stays in the store. */
  reset(key: string): Promise<SessionRecord | undefined>;
  /** A page of sessions, most recently active first (reads the page, not every session). */
  list(options: SessionListOptions): Promise<SessionPage>;
}

export interface SessionStoreOptions {
  store: Store;
  now?: () => Date;
  /** How many records stay cached (default 20,000); an evicted one is read again when used. */
  cachedSessions?: number;
  /** How many keys without a session are remembered as such (default 10,000). */
  cachedMissing?: number;
}

/**
 * Session records and transcripts. Records are listed by last activity (`sessions`, one list);
 * transcript entries are one key each (`<sessionId>:<seq>`), listed per session id by seq
 * (`transcripts`), so an append never rewrites the transcript or the record, and reads page.
 * Writes to one session are serialized here; records are cached (one process owns a session).
 */
export function createSessionStore(options: SessionStoreOptions): SessionStore {
  const state: SessionStoreState = {
    records: options.store.namespace('sessions', { index: SESSION_RECORD_INDEX }),
    entries: options.store.namespace('transcripts', { index: TRANSCRIPT_INDEX }),
    now: options.now ?? (() => new Date()),
    cache: new LRUCache({ max: options.cachedSessions ?? 20_000 }),
    missing: new LRUCache({ max: options.cachedMissing ?? 10_000 }),
    queue: createKeyQueue(),
  };
  return {
    get: (key) => readRecord(state, key),
    ensure: (key, init) => serialize(state, key, () => ensure(state, key, init)),
    append: (key, entry) => serialize(state, key, () => append(state, key, entry)),
    async transcript(key, read = {}) {
      const record = await readRecord(state, key);
      return record ? readTranscript(state, record.sessionId, read) : [];
    },
    async compaction(key) {
      const record = await readRecord(state, key);
      if (record?.compactionSeq === undefined) return undefined;
      return state.entries.get(transcriptEntryKey(record.sessionId, record.compactionSeq));
    },
    reset: (key) => serialize(state, key, () => reset(state, key)),
    list: (list) => listSessions(state, list),
  };
}

async function ensure(
  state: SessionStoreState,
  key: string,
  init: { agentId: string; route: DeliveryRoute },
): Promise<SessionRecord> {
  const existing = await loadRecord(state, key);
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
  await writeRecord(state, record);
  return record;
}

async function append(
  state: SessionStoreState,
  key: string,
  entry: NewTranscriptEntry,
): Promise<TranscriptEntry> {
  const record = await loadRecord(state, key);
  // Callers ensure the session first: an append without one is a bug.
  if (!record)
    throw new SwitchboardError('SESSION_UNKNOWN', `session store: append to unknown session ${key}`);
  const now = state.now();
  const at = now.toISOString();
  const stored: TranscriptEntry = { ...entry, seq: record.transcriptLength, at };
  const current: SessionRecord = { ...record, transcriptLength: stored.seq + 1, lastActivityAt: at };
  // A compaction (rare) rewrites the record to point at it; any other append only touches it.
  if (entry.compaction) {
    await state.entries.set(transcriptEntryKey(record.sessionId, stored.seq), stored);
    await writeRecord(state, { ...current, compactionSeq: stored.seq });
    return stored;
  }
  // One commit for both when the store groups writes; the entry alone is enough to read it back.
  await Promise.all([
    state.entries.set(transcriptEntryKey(record.sessionId, stored.seq), stored),
    state.records.touch(key, now.getTime()),
  ]);
  state.cache.set(key, current);
  return stored;
}

async function reset(state: SessionStoreState, key: string): Promise<SessionRecord | undefined> {
  const record = await loadRecord(state, key);
  if (!record) return undefined;
  const at = state.now().toISOString();
  const { compactionSeq: _old, ...kept } = record;
  const fresh: SessionRecord = {
    ...kept,
    sessionId: randomUUID(),
    transcriptLength: 0,
    createdAt: at,
    lastActivityAt: at,
  };
  await writeRecord(state, fresh);
  return fresh;
}
