import type { Client, Message } from 'discord.js';
import type { Logger } from '../../../base/logging/index.js';
import type { ChannelMemory } from '../memory.js';

/** The key in `ChannelMemory` of the channels read on (re)connect, with where each read starts. */
const KEY = 'catch-up';
/** A channel without a word the bot saw for a week is no longer read. */
const TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** Channels read on a (re)connect, the most recently active first. */
const MAX_CHANNELS = 50;
/** Messages read per channel and (re)connect (one page). */
const MAX_MESSAGES = 100;

/**
 * What a (re)connect reads: for each channel the bot heard a message in, the id after which its
 * messages may not all be stored yet. That is the newest message seen there, or, while one heard
 * there waits for the router to store it, the one just before the oldest such message: so a
 * message received and lost with the process before it was stored is read again.
 */
export interface DiscordCatchUp {
  /** `message` arrived (live or read back); `settled` must follow once it is stored or not heard. */
  arrived(message: Pick<Message, 'id' | 'channelId'>): void;
  /**
   * `message` is stored by the router, or was not for the bot; with `heard` its channel becomes
   * one the (re)connect reads. A message the router failed to store is never settled.
   */
  settled(message: Pick<Message, 'id' | 'channelId'>, heard: boolean): void;
  /**
   * Reads each active channel's messages after its mark (at most 100 per channel, 50 channels,
   * oldest first) and hands each to `handle`. Never throws: a channel that cannot be read is logged.
   */
  read(client: Client, handle: (message: Message) => Promise<void>): Promise<void>;
  /** The channels a (re)connect reads, the most recently active first, each with its mark. */
  channels(): Promise<Array<{ id: string; after: string }>>;
}

export function createDiscordCatchUp(options: { memory: ChannelMemory; logger: Logger }): DiscordCatchUp {
  const { memory, logger } = options;
  /** Per channel: the mark and when it last moved (read from the memory once). */
  let marks: Map<string, { after: string; at: number }> | undefined;
  /**
   * Per channel, the messages not settled yet (this process), each with how many times it arrived
   * unsettled: a message read back while its live copy waits is settled once per copy.
   */
  const waiting = new Map<string, Map<string, number>>();
  /** Per channel, the newest message settled. */
  const newest = new Map<string, bigint>();
  let writes: Promise<void> = Promise.resolve();

  const load = async () => {
    if (marks !== undefined) return marks;
    const raw = await memory.get(KEY).catch((error: unknown) => {
      logger.warn({ err: error }, 'discord catch-up marks could not be read');
      return undefined;
    });
    const parsed =
      raw === undefined ? {} : (JSON.parse(raw) as Record<string, { after: string; at: number }>);
    marks ??= new Map(Object.entries(parsed));
    return marks;
  };
  const save = () => {
    writes = writes.then(async () => {
      const all = await load();
      const kept = [...all].sort(([, a], [, b]) => b.at - a.at).slice(0, MAX_CHANNELS);
      marks = new Map(kept);
      await memory
        .set(KEY, JSON.stringify(Object.fromEntries(kept)), TTL_MS)
        .catch((error: unknown) =>
          logger.warn({ err: error }, 'discord catch-up marks could not be written'),
        );
    });
    return writes;
  };
  const markOf = (channelId: string): string | undefined => {
    // BigInt: Math.min does not take them.
    const [oldest] = [...(waiting.get(channelId)?.keys() ?? [])].map(BigInt).sort((a, b) => (a < b ? -1 : 1));
    if (oldest !== undefined) return String(oldest - 1n);
    const last = newest.get(channelId);
    return last === undefined ? undefined : String(last);
  };

  const channels = async () =>
    [...(await load())].sort(([, a], [, b]) => b.at - a.at).map(([id, { after }]) => ({ id, after }));

  return {
    arrived({ id, channelId }) {
      const copies = waiting.get(channelId) ?? new Map<string, number>();
      copies.set(id, (copies.get(id) ?? 0) + 1);
      waiting.set(channelId, copies);
    },
    settled({ id, channelId }, heard) {
      const copies = waiting.get(channelId);
      const left = (copies?.get(id) ?? 1) - 1;
      if (left > 0) copies?.set(id, left);
      else copies?.delete(id);
      const value = BigInt(id);
      if ((newest.get(channelId) ?? 0n) < value) newest.set(channelId, value);
      void load().then((all) => {
        if (!heard && !all.has(channelId)) return;
        const after = markOf(channelId);
        if (after === undefined || all.get(channelId)?.after === after) return;
        all.set(channelId, { after, at: Date.now() });
        return save();
      });
    },
    async read(client, handle) {
      await writes;
      await readBack(client, await channels(), handle, logger);
    },
    channels,
  };
}

/** Each channel's messages after its mark, oldest first, to `handle`; a channel that fails is logged. */
async function readBack(
  client: Client,
  channels: ReadonlyArray<{ id: string; after: string }>,
  handle: (message: Message) => Promise<void>,
  logger: Logger,
): Promise<void> {
  for (const { id: channelId, after } of channels) {
    try {
      const channel = await client.channels.fetch(channelId);
      if (channel === null || !channel.isTextBased()) continue;
      const found = await channel.messages.fetch({ after, limit: MAX_MESSAGES });
      const ordered = [...found.values()].sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
      if (ordered.length > 0) logger.info({ channelId, messages: ordered.length }, 'discord catch-up read');
      for (const message of ordered) await handle(message);
    } catch (error) {
      logger.warn({ err: error, channelId }, 'discord channel could not be caught up');
    }
  }
}
