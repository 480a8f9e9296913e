import { LRUCache } from 'lru-cache';
import type { Logger } from '../../base/logging/index.js';
import type { ChannelMemory } from './memory.js';

/** How long a name is trusted before it is looked up again; a failed lookup is tried again sooner. */
const NAME_TTL_MS = 7 * 24 * 3_600_000;
const MISS_TTL_MS = 3_600_000;
/** How often a name an event hands over unchanged is written again, so it never expires while in use. */
const REWRITE_MS = 24 * 3_600_000;

/** Where a platform's user and chat names are kept in its channel memory (read back by `readNames`). */
export const nameKey = {
  user: (id: string) => `name:user:${id}`,
  chat: (id: string) => `name:chat:${id}`,
};

/** The platform's own lookups (Slack's `users.info`, `conversations.info`); undefined when it has no name. */
export interface NameLookup {
  user(id: string): Promise<string | undefined>;
  chat(id: string): Promise<string | undefined>;
}

/**
 * The display names of a platform's users and the names of its chats, kept in the channel's
 * memory so the control UI can show them. Learning never blocks a reply: a lookup runs in the
 * background, once per id at a time, and a name already known (or a recent miss) is not asked again.
 */
export interface ChannelNames {
  /** Looks up the names of `user` and `chat` that are not known yet, in the background. */
  learn(ids: { user?: string; chat?: string }): void;
  /** Keeps names the platform handed over with an event (Discord's member and channel names). */
  keep(names: { user?: { id: string; name: string }; chat?: { id: string; name: string } }): void;
  /** Resolves once the lookups started so far have ended (tests, the adapter's stop). */
  settled(): Promise<void>;
}

export function createChannelNames(options: {
  memory: ChannelMemory;
  lookup?: NameLookup;
  logger: Logger;
}): ChannelNames {
  const { memory, lookup, logger } = options;
  const running = new Map<string, Promise<void>>();
  /**
   * Recently kept values and when: an event's names are written again when they changed, or a
   * day later, well within their week in memory (by the wall clock, as the memory's TTLs).
   */
  const kept = new LRUCache<string, { name: string; at: number }>({ max: 5000 });
  const store = (key: string, name: string | undefined) =>
    memory.set(key, name ?? '', name ? NAME_TTL_MS : MISS_TTL_MS);
  const look = (key: string, find: () => Promise<string | undefined>) => {
    if (running.has(key)) return;
    const work = (async () => {
      if ((await memory.get(key)) !== undefined) return;
      const name = await find().catch((error: unknown) => {
        logger.debug({ err: error, key }, 'name lookup failed');
        return undefined;
      });
      await store(key, name?.trim() || undefined);
    })()
      .catch((error: unknown) => logger.debug({ err: error, key }, 'name not kept'))
      .finally(() => running.delete(key));
    running.set(key, work);
  };
  const keepOne = (key: string, name: string) => {
    const known = kept.get(key);
    if (name.trim() === '' || (known?.name === name && Date.now() - known.at < REWRITE_MS)) return;
    kept.set(key, { name, at: Date.now() });
    void store(key, name).catch((error: unknown) => logger.debug({ err: error, key }, 'name not kept'));
  };
  return {
    learn({ user, chat }) {
      if (!lookup) return;
      if (user) look(nameKey.user(user), () => lookup.user(user));
      if (chat) look(nameKey.chat(chat), () => lookup.chat(chat));
    },
    keep({ user, chat }) {
      if (user) keepOne(nameKey.user(user.id), user.name);
      if (chat) keepOne(nameKey.chat(chat.id), chat.name);
    },
    async settled() {
      await Promise.all([...running.values()]);
    },
  };
}

/** What a channel memory knows of names: undefined when unknown or looked up without a name. */
export function readNames(memory: ChannelMemory) {
  const read = async (key: string) => (await memory.get(key)) || undefined;
  return {
    user: (id: string) => read(nameKey.user(id)),
    chat: (id: string) => read(nameKey.chat(id)),
  };
}
