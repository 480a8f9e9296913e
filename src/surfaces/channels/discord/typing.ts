/** Discord shows typing for 10 s after each call. */
const TYPING_REFRESH_MS = 8000;

/**
 * Typing per route key, held by every turn running there: the first hold starts it (and refreshes
 * it every 8 s), the last release stops it, and `stop` (a reply was posted) ends it at once.
 */
export interface TypingIndicator {
  hold(key: string, channelId: string): void;
  release(key: string): void;
  stop(key: string): void;
  stopAll(): void;
}

/** `post` shows typing in a channel once; it never throws (failures are the caller's to log). */
export function createTypingIndicator(post: (channelId: string) => void): TypingIndicator {
  const typing = new Map<string, { timer: NodeJS.Timeout; holders: number }>();
  const stop = (key: string) => {
    clearInterval(typing.get(key)?.timer);
    typing.delete(key);
  };
  return {
    hold(key, channelId) {
      post(channelId);
      const entry = typing.get(key);
      if (entry !== undefined) entry.holders += 1;
      else typing.set(key, { timer: setInterval(() => post(channelId), TYPING_REFRESH_MS), holders: 1 });
    },
    release(key) {
      const entry = typing.get(key);
      if (entry !== undefined && --entry.holders <= 0) stop(key);
    },
    stop,
    stopAll() {
      for (const key of [...typing.keys()]) stop(key);
    },
  };
}
