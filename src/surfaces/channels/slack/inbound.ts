import type { InboundMessage } from '../../../base/messages/index.js';
import { stripMention } from './hear.js';
import type { RawEventBody, RawMessageEvent } from './types.js';

/** The event as every adapter's message: a channel message's conversation is its thread. */
export function toInbound(
  raw: RawMessageEvent,
  body: RawEventBody,
  botUserId: string | undefined,
): InboundMessage {
  const direct = raw.channel_type === 'im';
  const sender = raw.user ?? raw.bot_id ?? 'unknown';
  const teamId = raw.team ?? body.team_id;
  // The bot answers a channel message in its thread, so the conversation is that thread: a
  // top-level message opens the session `…:thread:<its ts>`, and replies in the thread continue it.
  const threadId = direct ? raw.thread_ts : (raw.thread_ts ?? raw.ts);
  return {
    channel: 'slack',
    chatType: direct ? 'direct' : 'channel',
    chatId: direct ? sender : raw.channel,
    ...(threadId === undefined ? {} : { threadId }),
    senderId: `slack:${sender}`,
    text: stripMention(raw.text ?? '', botUserId),
    messageId: raw.ts,
    ...(teamId === undefined ? {} : { teamId }),
  };
}
