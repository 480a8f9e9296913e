import type { LRUCache } from 'lru-cache';
import type { KeyQueue, KeyValueNamespace } from '../store/index.js';
import { timeOrder } from './session-indexes.js';
import type { SessionRecord, TranscriptEntry } from './types.js';

export interface SessionStoreState {
  records: KeyValueNamespace<SessionRecord>;
  entries: KeyValueNamespace<TranscriptEntry>;
  now: () => Date;
  /**
   * Records read or written by this process, current (one process owns its sessions). An evicted
   * record is read again and brought up to date from its last transcript entry.
   */
  cache: LRUCache<string, SessionRecord>;
  /** Keys read with no session (a sender who never talked): not read from the store again. */
  missing: LRUCache<string, true>;
  /** The reads and writes of one session key, one after another. */
  queue: KeyQueue;
}

/** Runs `task` after every earlier task for the same key. */
export function serialize<T>(state: SessionStoreState, key: string, task: () => Promise<T>): Promise<T> {
  return state.queue.run(key, task);
}

/**
 * The record of `key`, current. A read from the store is queued with the key's writes, so a
 * session that `ensure` is creating is never remembered as missing.
 */
export function readRecord(state: SessionStoreState, key: string): Promise<SessionRecord | undefined> {
  const cached = state.cache.get(key);
  if (cached) return Promise.resolve(cached);
  if (state.missing.has(key)) return Promise.resolve(undefined);
  return serialize(state, key, () => loadRecord(state, key));
}

/** `readRecord` for a task already queued for `key` (ensure, append, reset). */
export async function loadRecord(state: SessionStoreState, key: string): Promise<SessionRecord | undefined> {
  const cached = state.cache.get(key);
  if (cached) return cached;
  if (state.missing.has(key)) return undefined;
  const stored = await state.records.get(key);
  if (!stored) {
    state.missing.set(key, true);
    return undefined;
  }
  const record = await upToDate(state, stored);
  state.cache.set(key, record);
  return record;
}

/** Writes a whole record (ensure, reset): its list position is its `lastActivityAt`. */
export async function writeRecord(state: SessionStoreState, record: SessionRecord): Promise<void> {
  await state.records.set(record.key, record);
  state.missing.delete(record.key);
  state.cache.set(record.key, record);
}

/**
 * A stored record with the length and last activity of its transcript: an append writes only the
 * entry (and moves the record in the list), so the stored record may be older than its last entry.
 * Records written by the current release are current already (it rewrote them on every append).
 */
export async function upToDate(state: SessionStoreState, stored: SessionRecord): Promise<SessionRecord> {
  const { entries } = await state.entries.page({ group: stored.sessionId, limit: 1 });
  const last = entries[0]?.value;
  if (!last) return stored;
  return {
    ...stored,
    transcriptLength: Math.max(stored.transcriptLength, last.seq + 1),
    lastActivityAt: timeOrder(last.at) > timeOrder(stored.lastActivityAt) ? last.at : stored.lastActivityAt,
  };
}
