import type { Message } from 'discord.js';
import type { DeliveryRoute, InboundMessage } from '../../../base/messages/index.js';
import type { HearCandidate } from './should-hear.js';

/** A mention of the bot in message text: `<@id>` or the older nickname form `<@!id>`. */
const mentionOf = (botId: string, flags?: string) => new RegExp(`<@!?${botId}>`, flags);

/**
 * The facts `shouldHear` needs. A message in a thread is described by the thread's parent
 * channel plus the thread id; a thread discord.js did not have cached (so without its parent)
 * is fetched once to learn the parent.
 */
export async function describeMessage(message: Message, botId: string): Promise<HearCandidate> {
  let channel = message.channel;
  if (channel.isThread() && channel.parentId === null) channel = await channel.fetch();
  const thread = channel.isThread() ? channel : undefined;
  const repliesToBot = message.reference !== null && message.mentions.repliedUser?.id === botId;
  // A reply pings the author it answers through `mentions`; only a mention the author wrote counts.
  const pingedByReply = repliesToBot && !mentionOf(botId).test(message.content);
  return {
    authorId: message.author.id,
    authorIsBot: message.author.bot,
    guildId: message.guildId ?? undefined,
    channelId: thread?.parentId ?? message.channelId,
    threadId: thread?.id,
    mentionsBot:
      mentionOf(botId).test(message.content) || (message.mentions.users.has(botId) && !pingedByReply),
    repliesToBot,
  };
}

/** The InboundMessage of a heard message: DMs are chatted by user id, sender ids come from the author. */
export function toInbound(message: Message, facts: HearCandidate, botId: string): InboundMessage {
  const direct = facts.guildId === undefined;
  return {
    channel: 'discord',
    chatType: direct ? 'direct' : 'channel',
    chatId: direct ? facts.authorId : facts.channelId,
    ...(facts.threadId === undefined ? {} : { threadId: facts.threadId }),
    senderId: `discord:${facts.authorId}`,
    text: message.content.replace(mentionOf(botId, 'g'), '').trim(),
    messageId: message.id,
    ...(facts.guildId === undefined ? {} : { guildId: facts.guildId }),
  };
}

/** One key per conversation: what replies, typing and the reply reference are kept by. */
export function routeKey(route: Pick<DeliveryRoute, 'chatType' | 'chatId' | 'threadId'>): string {
  return `${route.chatType}:${route.chatId}:${route.threadId ?? ''}`;
}
