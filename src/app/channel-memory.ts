import type { KeyValueNamespace, Store } from '../records/store/index.js';
import type { ChannelMemory } from '../surfaces/channels/index.js';

/** An entry with the time it expires (ms since the epoch), so every store kind expires alike. */
interface Remembered {
  value: string;
  expiresAt: number;
}

export interface StoreChannelMemoryOptions {
  store: Store;
  /** The channel's name; its entries live in the namespace `channel-<name>`. */
  channel: 'slack' | 'discord';
  /** The most entries kept; the soonest to expire go first. */
  maxEntries?: number;
  /** Writes between two sweeps (expired entries deleted, then the oldest past `maxEntries`). */
  sweepEvery?: number;
  now?: () => number;
}

const MAX_ENTRIES = 50_000;
const SWEEP_EVERY = 1000;

/**
 * A channel's memory in the store: entries expire after their TTL (checked on read, deleted by
 * the sweeps), and there are never more than `maxEntries` + `sweepEvery` of them. The first
 * write of a gateway sweeps, so what a stopped gateway left behind is cleaned up too.
 */
export function createStoreChannelMemory(options: StoreChannelMemoryOptions): ChannelMemory {
  const namespace: KeyValueNamespace<Remembered> = options.store.namespace(`channel-${options.channel}`);
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? MAX_ENTRIES;
  const sweepEvery = options.sweepEvery ?? SWEEP_EVERY;
  let writesSinceSweep = sweepEvery;
  let sweeping: Promise<void> | undefined;

  const sweep = async () => {
    // Listed first, deleted after: a paged listing would skip entries deleted under it.
    const listed: [string, number][] = [];
    for await (const [key, entry] of namespace.entries()) listed.push([key, entry.expiresAt]);
    const at = now();
    const live = listed.filter(([, expiresAt]) => expiresAt > at).sort((a, b) => a[1] - b[1]);
    const expired = listed.filter(([, expiresAt]) => expiresAt <= at);
    const excess = live.slice(0, Math.max(0, live.length - maxEntries));
    for (const [key] of [...expired, ...excess]) await namespace.delete(key);
  };

  return {
    async get(key) {
      const entry = await namespace.get(key);
      if (entry === undefined) return undefined;
      if (entry.expiresAt > now()) return entry.value;
      await namespace.delete(key);
      return undefined;
    },
    async set(key, value, ttlMs) {
      await namespace.set(key, { value, expiresAt: now() + ttlMs });
      writesSinceSweep += 1;
      if (writesSinceSweep < sweepEvery || sweeping !== undefined) return;
      writesSinceSweep = 0;
      // One sweep at a time; the write that starts it waits for it, the others do not.
      sweeping = sweep().finally(() => {
        sweeping = undefined;
      });
      await sweeping;
    },
  };
}
