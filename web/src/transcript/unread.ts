// Unread entries: how many a session had when the owner last opened it, kept in this browser's
// localStorage (per session id: a `/new` starts the count again). A session never opened has all
// its entries unread.

const PREFIX = 'switchboard:seen:';

interface Seen {
  sessionId: string;
  length: number;
}

function readSeen(key: string): Seen | undefined {
  try {
    const raw = localStorage.getItem(PREFIX + key);
    return raw ? (JSON.parse(raw) as Seen) : undefined;
  } catch {
    return undefined;
  }
}

/** Entries since the owner last opened the session. */
export function unreadCount(summary: { key: string; sessionId: string; transcriptLength: number }): number {
  const seen = readSeen(summary.key);
  const length = seen?.sessionId === summary.sessionId ? seen.length : 0;
  return Math.max(0, summary.transcriptLength - length);
}

/** The owner has seen the session up to `length` entries. */
export function markSeen(key: string, sessionId: string, length: number): void {
  try {
    localStorage.setItem(PREFIX + key, JSON.stringify({ sessionId, length }));
  } catch {
    // Storage full or blocked: unread counts are a convenience.
  }
}
