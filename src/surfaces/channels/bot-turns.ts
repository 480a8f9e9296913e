import { LRUCache } from 'lru-cache';
import type { ChannelName } from '../../base/messages/index.js';

/**
 * Counts, per conversation (a thread, or a channel without threads), the turns other bots have
 * started in a row. Two bots that answer each other would otherwise talk forever: past `limit`
 * a bot's message is not answered until a person writes there. Kept in this process only (a
 * restart allows `limit` more), for the `conversations` most recently active.
 */
export function createBotTurnLimit(options: { limit: number; conversations?: number }) {
  const limit = options.limit;
  const capacity = options.conversations ?? 10_000;
  const counts = new LRUCache<string, number>({ max: capacity });
  return {
    /** Whether a heard message may start a turn; counts it. A person's always may, and resets the count. */
    allow(conversation: string, fromBot: boolean): boolean {
      const count = fromBot ? (counts.peek(conversation) ?? 0) : 0;
      if (count >= limit) return false;
      counts.set(conversation, fromBot ? count + 1 : 0);
      return true;
    },
  };
}

/** The log line of a bot's message that the limit stopped. */
export function botLimitMessage(platform: ChannelName, limit: number): string {
  return `${platform}: not answering another bot here: ${limit} bot turns in a row (channels.${platform}.maxBotTurns) until a person writes`;
}

/** The log line of a bot's reply to the bot's own message. */
export function botReplyMessage(platform: ChannelName): string {
  return `${platform}: not answering a bot's reply to the bot's own message (two bots would answer each other forever)`;
}
