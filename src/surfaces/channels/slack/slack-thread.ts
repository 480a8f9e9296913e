import type { App } from '@slack/bolt';
import type { Logger } from '../../../base/logging/index.js';
import type { ContextMessage } from '../../../base/messages/index.js';
import { type ChannelMemory, createRecall } from '../memory.js';
import { withinBudget } from './ack.js';
import type { RawMessageEvent } from './types.js';

/** A thread read (or joined) is not read again for a month, as the gate keeps its threads. */
const READ_TTL_MS = 30 * 24 * 60 * 60 * 1000;
const RECENT = 5000;
/** `threadHistoryLimit`'s default in the schema, for a config built in code without it. */
const DEFAULT_LIMIT = 20;
/** The read comes before the message is stored, inside Slack's ack budget (2.5 s): it gets part of it. */
const READ_BUDGET_MS = 1500;
/** `conversations.replies` pages of this many, at most MAX_PAGES of them (a thread's newest come last). */
const PAGE_SIZE = 200;
const MAX_PAGES = 5;
/** Subtypes that are someone saying something (as `hear.ts` hears them). */
const SPOKEN = new Set([undefined, 'bot_message', 'thread_broadcast', 'file_share', 'me_message']);

interface RepliesMessage {
  ts?: string;
  user?: string;
  bot_id?: string;
  subtype?: string;
  text?: string;
}

export interface SlackThreadReader {
  /**
   * The earlier messages of the thread `raw` was written in, when that thread is new to the bot
   * (it neither heard nor read it before): at most `threadHistoryLimit`, oldest first, the
   * thread's first message and the latest before `raw`, without the bot's own. `[]` when there is
   * nothing to read, or when the read failed or took too long (logged: the message goes on
   * without them; a missing `*:history` scope is named in the log).
   */
  earlier(raw: RawMessageEvent): Promise<ContextMessage[]>;
  /** The bot heard the thread `threadTs` of `chatId` (its message is stored): not read again. */
  heard(chatId: string, threadTs: string): Promise<void>;
}

export function createSlackThreadReader(options: {
  client: App['client'];
  limit: number | undefined;
  memory: ChannelMemory;
  logger: Logger;
  identity(): { botUserId: string | undefined; botId: string | undefined };
}): SlackThreadReader {
  const { client, logger } = options;
  const limit = options.limit ?? DEFAULT_LIMIT;
  const read = createRecall({ memory: options.memory, ttlMs: READ_TTL_MS, limit: RECENT, logger });
  return {
    async earlier(raw) {
      const threadTs = raw.thread_ts;
      if (limit === 0 || threadTs === undefined || threadTs === raw.ts || raw.channel_type === 'im')
        return [];
      if (await read.has(keyOf(raw.channel, threadTs))) return [];
      const where = { channel: raw.channel, threadTs };
      const replies = fetchReplies(client, raw.channel, threadTs, raw.ts).catch((error: unknown) => {
        logger.warn({ err: error, ...where }, 'slack thread history not read (conversations.replies)');
        return undefined;
      });
      const outcome = await withinBudget(replies, READ_BUDGET_MS);
      if (outcome === 'late')
        logger.warn({ ...where, budgetMs: READ_BUDGET_MS }, 'slack thread history read too slow; left out');
      if (outcome === 'late' || outcome === undefined) return [];
      return pick(outcome, raw.ts, limit, options.identity());
    },
    heard: (chatId, threadTs) => read.add(keyOf(chatId, threadTs)),
  };
}

const keyOf = (chatId: string, threadTs: string) => `thread-read:${chatId}:${threadTs}`;

/** The thread's messages before `beforeTs`, oldest first (Slack pages a thread from its start). */
async function fetchReplies(
  client: App['client'],
  channel: string,
  threadTs: string,
  beforeTs: string,
): Promise<RepliesMessage[]> {
  const messages: RepliesMessage[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const answer = await client.conversations.replies({
      channel,
      ts: threadTs,
      latest: beforeTs,
      inclusive: false,
      limit: PAGE_SIZE,
      ...(cursor === undefined ? {} : { cursor }),
    });
    messages.push(...((answer.messages ?? []) as RepliesMessage[]));
    cursor = answer.response_metadata?.next_cursor || undefined;
    if (!answer.has_more || cursor === undefined) break;
  }
  return messages;
}

/** Others' spoken messages before `beforeTs`: the thread's first and the latest, `limit` in all. */
function pick(
  messages: RepliesMessage[],
  beforeTs: string,
  limit: number,
  identity: { botUserId: string | undefined; botId: string | undefined },
): ContextMessage[] {
  const spoken = messages.filter(
    (message) =>
      message.ts !== undefined &&
      Number(message.ts) < Number(beforeTs) &&
      SPOKEN.has(message.subtype) &&
      (message.text ?? '') !== '' &&
      (message.user === undefined || message.user !== identity.botUserId) &&
      (message.bot_id === undefined || message.bot_id !== identity.botId),
  );
  const chosen = spoken.length <= limit ? spoken : [spoken[0], ...spoken.slice(spoken.length - limit + 1)];
  return chosen.flatMap((message) =>
    message === undefined
      ? []
      : [{ senderId: `slack:${message.user ?? message.bot_id ?? 'unknown'}`, text: message.text ?? '' }],
  );
}
