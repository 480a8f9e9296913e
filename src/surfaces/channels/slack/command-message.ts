import type { InboundMessage } from '../../../base/messages/index.js';
import { type HearSettings, shouldHear } from './hear.js';
import type { SlackIdentity } from './types.js';

/** A chat command's first word, as the router reads it (`/name args`). */
const COMMAND_WORD = /^[A-Za-z][\w-]*$/;

/** The fields of a slash command payload the adapter reads. */
export interface SlashPayload {
  command?: string;
  text?: string;
  user_id?: string;
  channel_id?: string;
  team_id?: string;
  trigger_id?: string;
}

/**
 * Whether the bot hears the sender there, by the same rules as a message that mentions it: DMs by
 * `dmPolicy` / `allowFrom`, channels by the `channels` list.
 */
export function heard(
  settings: HearSettings,
  identity: SlackIdentity,
  facts: { channel: string; user: string },
): boolean {
  const event = {
    channelType: facts.channel.startsWith('D') ? 'im' : 'channel',
    channel: facts.channel,
    user: facts.user,
    botId: undefined,
    subtype: undefined,
    text: '',
    threadTs: undefined,
    mentionEvent: true,
  };
  return shouldHear(event, settings, { ...identity, inThread: () => false });
}

/** `status now` → `/status now`; empty → `/help`; a first word that is no command name → undefined. */
export function commandText(words: string): string | undefined {
  const trimmed = words.trim().replace(/^\//, '');
  if (trimmed === '') return '/help';
  const [first = ''] = trimmed.split(/\s/, 1);
  return COMMAND_WORD.test(first) ? `/${trimmed}` : undefined;
}

/** The command as every adapter's message: in a channel its conversation is the channel itself. */
export function toCommandMessage(
  payload: SlashPayload,
  facts: { user: string; channel: string; text: string },
): InboundMessage {
  const direct = facts.channel.startsWith('D');
  return {
    channel: 'slack',
    chatType: direct ? 'direct' : 'channel',
    chatId: direct ? facts.user : facts.channel,
    senderId: `slack:${facts.user}`,
    text: facts.text,
    // Unique per invocation (Slack's trigger id), never a message's ts.
    messageId: `command:${payload.trigger_id ?? crypto.randomUUID()}`,
    ...(payload.team_id === undefined ? {} : { teamId: payload.team_id }),
    nativeCommand: true,
  };
}
