/**
 * Runs the tasks of one key one after another, each after every earlier one for that key has
 * settled (a failure does not stop the next); tasks of different keys do not wait for each other.
 * The read-modify-write sections of a session, a sub-agent run or a Redis key use it.
 */
export interface KeyQueue {
  run<T>(key: string, task: () => Promise<T>): Promise<T>;
  /** Whether a task of `key` is queued or running. */
  has(key: string): boolean;
}

export function createKeyQueue(): KeyQueue {
  const tails = new Map<string, Promise<unknown>>();
  return {
    has: (key) => tails.has(key),
    run<T>(key: string, task: () => Promise<T>): Promise<T> {
      const next = (tails.get(key) ?? Promise.resolve()).then(task, task);
      const tail = next.catch(() => {});
      tails.set(key, tail);
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
      return next;
    },
  };
}
