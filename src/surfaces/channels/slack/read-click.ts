import { fail, ok, type Result } from '../../../base/errors/index.js';
import type { InboundMessage } from '../../../base/messages/index.js';
import { blocksOf, REPLY_ACTION_ID, type SlackBlock } from './blocks.js';

/** Slack's own limit for a button's value: anything longer did not come from a button of ours. */
const VALUE_LIMIT = 2000;

/** A click on one of our buttons, read from a `block_actions` payload. */
export interface Click {
  message: InboundMessage;
  /** The conversation and `ts` of the clicked message, for `chat.update`. */
  channel: string;
  ts: string;
  threadTs: string | undefined;
  user: string;
  blocks: SlackBlock[];
}

/** What of a payload says who clicked where, for a refusal when the rest cannot be read. */
export interface Where {
  channel?: string;
  user?: string;
  threadTs?: string;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;
const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};

/**
 * The click as every adapter's message: the sender is the payload's `user.id` (Slack's, never a
 * name or text); a channel's conversation is the clicked message's thread (as for `toInbound`),
 * a DM's is the user. Fails, naming what is wrong, on a payload that is not a click on one of
 * our buttons under a message.
 */
export function readClick(body: unknown, action: unknown): Result<Click, { problem: string; where: Where }> {
  const payload = record(body);
  const message = record(payload.message);
  const container = record(payload.container);
  const user = text(record(payload.user).id);
  const channel = text(container.channel_id) ?? text(record(payload.channel).id);
  const ts = text(message.ts) ?? text(container.message_ts);
  const threadTs = text(message.thread_ts);
  const where: Where = { ...(channel && { channel }), ...(user && { user }), ...(threadTs && { threadTs }) };
  const button = record(action);
  const value = text(button.value);
  if (user === undefined) return fail({ problem: 'no user id', where });
  if (channel === undefined) return fail({ problem: 'no channel', where });
  if (ts === undefined) return fail({ problem: 'not under a message', where });
  if (!REPLY_ACTION_ID.test(text(button.action_id) ?? ''))
    return fail({ problem: 'not a button of this gateway', where });
  if (button.type !== 'button' || value === undefined || value.length > VALUE_LIMIT)
    return fail({ problem: 'not a button with a value', where });
  const direct = channel.startsWith('D');
  const teamId = text(record(payload.team).id) ?? text(record(payload.user).team_id);
  const threadId = direct ? threadTs : (threadTs ?? ts);
  return ok({
    message: {
      channel: 'slack',
      chatType: direct ? 'direct' : 'channel',
      chatId: direct ? user : channel,
      ...(threadId === undefined ? {} : { threadId }),
      senderId: `slack:${user}`,
      text: '',
      // Unique per click: the message and when the button was pressed.
      messageId: `${ts}:${text(button.action_ts) ?? text(payload.trigger_id) ?? 'click'}`,
      ...(teamId === undefined ? {} : { teamId }),
      action: value,
    },
    channel,
    ts,
    threadTs,
    user,
    blocks: blocksOf(message.blocks),
  });
}
