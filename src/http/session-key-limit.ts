import { ConfigSchema } from '../config/index.js';

/**
 * The longest id in a session key: agent ids (`agents.<id>`), web chat users and threads all
 * allow 64 characters (`^[…]{0,63}$` after a first character); Slack and Discord ids are shorter.
 */
const MAX_ID_LENGTH = 64;
/** The longest channel name and chat type in a key (`webchat`, `channel`). */
const MAX_WORD_LENGTH = 'webchat'.length;
/** A sub-agent's segment: `:subagent:` and a UUID. */
const SUBAGENT_SEGMENT_LENGTH = ':subagent:'.length + 36;

const maxSpawnDepth = ConfigSchema.properties.subagents.properties.maxSpawnDepth.maximum as number;

/** `agent:<agent>:<channel>:<chatType>:<chat>:thread:<thread>` at its longest. */
const CHAT_KEY =
  'agent:'.length +
  MAX_ID_LENGTH +
  2 * (1 + MAX_WORD_LENGTH) +
  1 +
  MAX_ID_LENGTH +
  ':thread:'.length +
  MAX_ID_LENGTH;
/** `agent:<agent>` and one `:subagent:<uuid>` per level, as deep as `subagents.maxSpawnDepth` may go. */
const SUBAGENT_KEY = 'agent:'.length + MAX_ID_LENGTH + maxSpawnDepth * SUBAGENT_SEGMENT_LENGTH;

/** The longest session key the gateway makes. */
export const MAX_SESSION_KEY_LENGTH = Math.max(CHAT_KEY, SUBAGENT_KEY);

/**
 * fastify's `maxParamLength` (default 100, answered 414 beyond): a URL parameter is measured as
 * sent, so a key whose every character is percent-encoded (`%3A` for `:`) must still fit.
 */
export const MAX_PARAM_LENGTH = 3 * MAX_SESSION_KEY_LENGTH;
