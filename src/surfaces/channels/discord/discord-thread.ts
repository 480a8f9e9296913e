import { type Message, MessageType } from 'discord.js';
import pTimeout from 'p-timeout';
import type { Logger } from '../../../base/logging/index.js';
import type { ContextMessage } from '../../../base/messages/index.js';
import { type ChannelMemory, createRecall } from '../memory.js';

/** A thread read (or heard) is not read again for a month, as the gate keeps its threads. */
const READ_TTL_MS = 30 * 24 * 60 * 60 * 1000;
const RECENT = 5000;
/** `threadHistoryLimit`'s default in the schema, for a config built in code without it. */
const DEFAULT_LIMIT = 20;
/** The read delays the message's dispatch: past this the message goes on without it. */
const READ_BUDGET_MS = 3000;
/** Message types that are someone saying something. */
const SPOKEN = new Set<MessageType>([MessageType.Default, MessageType.Reply]);

export interface DiscordThreadReader {
  /**
   * The earlier messages of the thread `message` was written in, when that thread is new to the
   * bot (it neither heard nor read it before): the message the thread was started from (in its
   * parent channel), then the latest before `message` (`GET /channels/:thread/messages?before=`),
   * `threadHistoryLimit` in all, oldest first, without the bot's own. `[]`
   * when there is nothing to read, or when the read failed or took too long (logged: the message
   * goes on without them; Discord needs the Read Message History permission for it).
   */
  earlier(message: Message, threadId: string | undefined, botId: string): Promise<ContextMessage[]>;
  /** The bot heard the thread `threadId` (its message was taken): not read again. */
  heard(threadId: string): Promise<void>;
}

export function createDiscordThreadReader(options: {
  limit: number | undefined;
  memory: ChannelMemory;
  logger: Logger;
}): DiscordThreadReader {
  const { logger } = options;
  const limit = options.limit ?? DEFAULT_LIMIT;
  const read = createRecall({ memory: options.memory, ttlMs: READ_TTL_MS, limit: RECENT, logger });
  return {
    async earlier(message, threadId, botId) {
      const thread = message.channel;
      if (limit === 0 || threadId === undefined || !thread.isThread()) return [];
      if (await read.has(keyOf(threadId))) return [];
      // A thread started from a message keeps that message in its parent channel (same id).
      const starter = thread.fetchStarterMessage().catch(() => null);
      const history = thread.messages.fetch({ before: message.id, limit });
      try {
        const [first, fetched] = await pTimeout(Promise.all([starter, history]), {
          milliseconds: READ_BUDGET_MS,
        });
        const spoken = [...fetched.values()]
          .filter((earlier) => earlier.id !== first?.id)
          .filter((earlier) => isOthers(earlier, botId))
          .sort(inTimeOrder);
        const head = first && isOthers(first, botId) ? [first] : [];
        const chosen = [...head, ...spoken.slice(Math.max(0, spoken.length - (limit - head.length)))];
        return chosen.map((earlier) => ({ senderId: `discord:${earlier.author.id}`, text: earlier.content }));
      } catch (error) {
        history.catch(() => undefined);
        logger.warn({ err: error, threadId }, 'discord thread history not read (GET channel messages)');
        return [];
      }
    },
    heard: (threadId) => read.add(keyOf(threadId)),
  };
}

const keyOf = (threadId: string) => `thread-read:${threadId}`;

/** Someone else's message that says something (not the bot's own, not a join or a pin). */
function isOthers(message: Message, botId: string): boolean {
  return message.author.id !== botId && SPOKEN.has(message.type) && message.content !== '';
}

/** Oldest first; snowflakes break ties. */
function inTimeOrder(a: Message, b: Message): number {
  if (a.createdTimestamp !== b.createdTimestamp) return a.createdTimestamp - b.createdTimestamp;
  const difference = BigInt(a.id) - BigInt(b.id);
  return difference === 0n ? 0 : difference < 0n ? -1 : 1;
}
