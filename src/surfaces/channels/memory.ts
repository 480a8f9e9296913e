import { LRUCache } from 'lru-cache';
import type { Logger } from '../../base/logging/index.js';

/**
 * What a channel keeps across restarts (the threads it takes part in, the events it answered):
 * a small key/value port the composition root builds from a store namespace, so channels never
 * import the store. Entries expire after their TTL; the implementation also bounds their number.
 */
export interface ChannelMemory {
  /** The value of `key`, or undefined when absent or expired. */
  get(key: string): Promise<string | undefined>;
  /** Keeps `value` under `key` for `ttlMs` (a later `set` renews it). */
  set(key: string, value: string, ttlMs: number): Promise<void>;
}

/** The in-process memory of an adapter built without a store (tests, embedders): forgotten on restart. */
export function createLocalMemory(limit = 5000): ChannelMemory {
  // Expiry by the wall clock (Date.now), as the stores' TTLs; the cache only bounds the number,
  // forgetting the least recently set first (`peek` reads without renewing).
  const entries = new LRUCache<string, { value: string; expiresAt: number }>({ max: limit });
  return {
    async get(key) {
      const entry = entries.peek(key);
      if (entry === undefined || entry.expiresAt <= Date.now()) return undefined;
      return entry.value;
    },
    async set(key, value, ttlMs) {
      entries.set(key, { value, expiresAt: Date.now() + ttlMs });
    },
  };
}

/** A set of keys that forgets its oldest beyond `limit`; `add` says whether the key was new. */
export function createRecentKeys(limit: number) {
  const keys = new LRUCache<string, true>({ max: limit });
  return {
    has: (key: string) => keys.has(key),
    delete: (key: string) => keys.delete(key),
    add(key: string): boolean {
      const added = !keys.has(key);
      keys.set(key, true);
      return added;
    },
  };
}

export interface Recall {
  /**
   * Whether `key` is new to this process, marking it seen (synchronous, so two deliveries of one
   * event that arrive together are told apart before either awaits anything).
   */
  firstHere(key: string): boolean;
  /** Undoes `firstHere`: the key is new to this process again. */
  forgetHere(key: string): void;
  /** Whether `key` is new to the store too; marks it there for `ttlMs`. */
  claim(key: string): Promise<boolean>;
  /** Whether `key` is remembered (here or in the store). */
  has(key: string): Promise<boolean>;
  /** Whether the store remembers `key` (from this process or one before); marks nothing. */
  inStore(key: string): Promise<boolean>;
  /** Remembers `key` (renewing its TTL in the store). */
  add(key: string): Promise<void>;
}

/**
 * Keys remembered in `memory` for `ttlMs`, with the most recent `limit` also kept in this
 * process. A store that fails is logged and treated as forgetful: a message may then be heard
 * twice, never dropped.
 */
export function createRecall(options: {
  memory: ChannelMemory;
  ttlMs: number;
  limit: number;
  logger: Logger;
}): Recall {
  const { memory, ttlMs, logger } = options;
  const here = createRecentKeys(options.limit);
  const stored = async (key: string) => {
    try {
      return (await memory.get(key)) !== undefined;
    } catch (error) {
      logger.warn({ err: error, key }, 'channel memory could not be read');
      return false;
    }
  };
  const store = async (key: string) => {
    try {
      await memory.set(key, '1', ttlMs);
    } catch (error) {
      logger.warn({ err: error, key }, 'channel memory could not be written');
    }
  };
  return {
    firstHere: (key) => here.add(key),
    forgetHere: (key) => {
      here.delete(key);
    },
    async claim(key) {
      if (await stored(key)) return false;
      await store(key);
      return true;
    },
    async has(key) {
      if (here.has(key)) return true;
      const found = await stored(key);
      if (found) here.add(key);
      return found;
    },
    inStore: stored,
    async add(key) {
      here.add(key);
      await store(key);
    },
  };
}
