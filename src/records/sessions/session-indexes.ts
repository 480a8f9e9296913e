import type { NamespaceIndex } from '../store/index.js';
import type { SessionRecord, TranscriptEntry } from './types.js';

/** The stored form of a transcript entry's key: its session id and its seq. */
export const transcriptEntryKey = (sessionId: string, seq: number): string => `${sessionId}:${seq}`;

/** A time as an index order: ms since the epoch, 0 for a value that is not a time (never NaN). */
export function timeOrder(at: string): number {
  const ms = Date.parse(at);
  return Number.isFinite(ms) ? ms : 0;
}

/**
 * `sessions`: one list, by last activity. A record is written on `ensure` and `reset` only; an
 * append moves it with `touch`, so its order is the session's last activity and the stored
 * `lastActivityAt` may be older. Records written by the current release carry their last activity.
 */
export const SESSION_RECORD_INDEX: NamespaceIndex<SessionRecord> = {
  order: (_key, record) => timeOrder(record.lastActivityAt),
};

/**
 * `transcripts`: one list per session id, by seq. The group is read from the key
 * (`<sessionId>:<seq>`, as the current release writes it): a session id has no `:`.
 */
export const TRANSCRIPT_INDEX: NamespaceIndex<TranscriptEntry> = {
  group: (key) => key.slice(0, Math.max(0, key.lastIndexOf(':'))),
  order: (_key, entry) => entry.seq,
};
