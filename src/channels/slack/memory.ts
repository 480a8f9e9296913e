/** How many event ids, message ids and threads are remembered (oldest forgotten first). */
const MEMORY = 5000;

/** A set that forgets its oldest entries beyond `MEMORY`; `add` says whether the key was new. */
export function createMemory() {
  const keys = new Set<string>();
  return {
    has: (key: string) => keys.has(key),
    add(key: string): boolean {
      if (keys.has(key)) return false;
      keys.add(key);
      if (keys.size > MEMORY) {
        const oldest = keys.values().next().value;
        if (oldest !== undefined) keys.delete(oldest);
      }
      return true;
    },
  };
}
