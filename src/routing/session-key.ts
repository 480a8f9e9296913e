import type { InboundMessage } from '../channels/index.js';

/**
 * The readable session key of an inbound message:
 * `agent:<agentId>:<channel>:direct:<userId>` for direct chats,
 * `agent:<agentId>:<channel>:channel:<channelId>` for channels, `…:thread:<threadId>` for threads.
 */
export function sessionKeyFor(agentId: string, message: InboundMessage): string {
  const base = `agent:${agentId}:${message.channel}:${message.chatType}:${message.chatId}`;
  return message.threadId === undefined ? base : `${base}:thread:${message.threadId}`;
}
