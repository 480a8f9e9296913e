import type { SessionStore } from './session-store.js';
import { type QueueStatus, type SessionSummary, summarizeSession } from './session-summary.js';
import type { TranscriptEntry } from './types.js';

/**
 * What happens to sessions, as the control UI follows it live: a session changed (created, reset,
 * appended to, or its turn's status moved: its summary as it is now), or an entry was appended.
 */
export type SessionEvent =
  | { type: 'session'; summary: SessionSummary }
  | { type: 'entry'; key: string; entry: TranscriptEntry };

/** Polls a session stays watched while idle: a message accepted may wait a moment for its turn. */
const IDLE_POLLS = 8;

export type SessionEventListener = (event: SessionEvent) => void;

export interface SessionEventsOptions {
  /** The session's turn status (routing's queues know it; idle before the router exists). */
  status(key: string): QueueStatus;
  /** How often the status of a session with a turn is read again (ms, default 250). */
  pollMs?: number;
}

export interface SessionEvents {
  /** The store with every write reported here; everything above the store uses this one. */
  observe(store: SessionStore): SessionStore;
  /** Listens to every event until the returned function is called. */
  subscribe(listener: SessionEventListener): () => void;
  /** Stops reading statuses (the gateway stops). */
  close(): void;
}

/**
 * The session events bus. Writes are seen by wrapping the store (`observe`); a status change has
 * no write of its own (a turn ends after its last entry), so a session written to is watched: its
 * status is read every `pollMs` until it is idle again, and each change is a `session` event.
 * Only sessions with recent writes are watched, and nothing is read while no one listens.
 */
export function createSessionEvents(options: SessionEventsOptions): SessionEvents {
  const listeners = new Set<SessionEventListener>();
  /** Watched keys: the status last reported, and for how many polls in a row it has been idle. */
  const watched = new Map<string, { status: QueueStatus; idlePolls: number }>();
  let store: SessionStore | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  const emit = (event: SessionEvent) => {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch {
        // A listener's failure (a closed stream) is its own: the others still hear the event.
      }
    }
  };
  // The status is taken (and remembered) before the record is read: a poll meanwhile sees no change.
  const announce = async (key: string) => {
    const status = options.status(key);
    watched.set(key, { status, idlePolls: 0 });
    const record = await store?.get(key);
    if (record) emit({ type: 'session', summary: summarizeSession(record, status) });
  };
  const poll = () => {
    for (const [key, last] of watched) {
      const status = options.status(key);
      if (status !== last.status) void announce(key).catch(() => undefined);
      // Idle for a while (a message accepted may wait for its turn a moment): no longer watched.
      else if (status === 'idle' && ++last.idlePolls >= IDLE_POLLS) watched.delete(key);
    }
    if (watched.size === 0) stopPolling();
  };
  const stopPolling = () => {
    clearInterval(timer);
    timer = undefined;
  };
  const changed = (key: string) => {
    if (listeners.size === 0) return;
    void announce(key).catch(() => undefined);
    timer ??= setInterval(poll, options.pollMs ?? 250);
    timer.unref?.();
  };
  return {
    observe(inner) {
      store = observed(inner, {
        changed,
        appended: (key, entry) => {
          if (listeners.size > 0) emit({ type: 'entry', key, entry });
          changed(key);
        },
      });
      return store;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) watched.clear();
      };
    },
    close() {
      stopPolling();
      watched.clear();
      listeners.clear();
    },
  };
}

/** The store, telling `seen` of each write once it is done (a failed write tells nothing). */
function observed(
  inner: SessionStore,
  seen: { changed(key: string): void; appended(key: string, entry: TranscriptEntry): void },
): SessionStore {
  return {
    get: (key) => inner.get(key),
    transcript: (key, read) => inner.transcript(key, read),
    compaction: (key) => inner.compaction(key),
    list: (list) => inner.list(list),
    async ensure(key, init) {
      const record = await inner.ensure(key, init);
      seen.changed(key);
      return record;
    },
    async append(key, entry) {
      const stored = await inner.append(key, entry);
      seen.appended(key, stored);
      return stored;
    },
    async reset(key) {
      const fresh = await inner.reset(key);
      if (fresh) seen.changed(key);
      return fresh;
    },
  };
}
