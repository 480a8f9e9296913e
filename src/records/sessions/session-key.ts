import { ConfigSchema } from '../../base/config/index.js';
import type { InboundMessage } from '../../base/messages/index.js';

/**
 * Session keys, every kind, built and measured here and nowhere else. Keys are readable strings:
 * - a chat: `agent:<agentId>:<channel>:direct:<userId>`, `agent:<agentId>:<channel>:channel:<channelId>`,
 *   `…:thread:<threadId>` for a thread;
 * - an agent's main session (no chat reads it; signals wake the agent there): `agent:<agentId>:main`;
 * - a sub-agent: `agent:<agentId>:subagent:<uuid>` below a chat session, `<parent key>:subagent:<uuid>`
 *   below another sub-agent, so the depth is the number of `:subagent:` segments.
 */

const SUBAGENT_SEGMENT = ':subagent:';

/** The session of a chat message for the agent bound to it. */
export function chatSessionKey(agentId: string, message: InboundMessage): string {
  const base = `agent:${agentId}:${message.channel}:${message.chatType}:${message.chatId}`;
  return message.threadId === undefined ? base : `${base}:thread:${message.threadId}`;
}

/** An agent's main session. */
export function mainSessionKey(agentId: string): string {
  return `agent:${agentId}:main`;
}

/** A new sub-agent's session, spawned by the session `parentKey` to run agent `agentId`. */
export function childSessionKey(
  parentKey: string,
  agentId: string,
  id: string = crypto.randomUUID(),
): string {
  return subagentDepth(parentKey) === 0
    ? `agent:${agentId}${SUBAGENT_SEGMENT}${id}`
    : `${parentKey}${SUBAGENT_SEGMENT}${id}`;
}

/** 0 for a chat or main session; one more for each sub-agent level. */
export function subagentDepth(sessionKey: string): number {
  return sessionKey.split(SUBAGENT_SEGMENT).length - 1;
}

/**
 * The longest id in a session key: agent ids (`agents.<id>`), web chat users and threads all
 * allow 64 characters (`^[…]{0,63}$` after a first character); Slack and Discord ids are shorter.
 */
const MAX_ID_LENGTH = 64;
/** The longest channel name and chat type in a key (`webchat`, `channel`). */
const MAX_WORD_LENGTH = 'webchat'.length;
const UUID_LENGTH = 36;
const maxSpawnDepth = ConfigSchema.properties.subagents.properties.maxSpawnDepth.maximum as number;

/** `agent:<agent>:<channel>:<chatType>:<chat>:thread:<thread>` at its longest. */
const CHAT_KEY_LENGTH =
  'agent:'.length +
  MAX_ID_LENGTH +
  2 * (1 + MAX_WORD_LENGTH) +
  1 +
  MAX_ID_LENGTH +
  ':thread:'.length +
  MAX_ID_LENGTH;
/** `agent:<agent>` and one `:subagent:<uuid>` per level, as deep as `subagents.maxSpawnDepth` may go. */
const SUBAGENT_KEY_LENGTH =
  'agent:'.length + MAX_ID_LENGTH + maxSpawnDepth * (SUBAGENT_SEGMENT.length + UUID_LENGTH);

/** The longest session key the gateway makes. */
export const MAX_SESSION_KEY_LENGTH = Math.max(CHAT_KEY_LENGTH, SUBAGENT_KEY_LENGTH);
