import type { DispatchResult, InboundMessage, OutboundMessage } from '../../messages/index.js';
import { splitMessage } from '../split-message.js';
import { shouldHear } from './hear.js';
import type { SlackState } from './slack-adapter.js';
import { postReply, SLACK_TEXT_LIMIT } from './slack-send.js';

/** The slash command when `channels.slack.slashCommand` is not set. */
export const DEFAULT_SLASH_COMMAND = '/switchboard';

/** To a sender the bot does not hear where they ran the command (as for their messages). */
const NOT_HERE = 'I do not take commands from you here (not here, or not from you): ask an owner.';

/** A chat command's first word, as the router reads it (`/name args`). */
const COMMAND_WORD = /^[A-Za-z][\w-]*$/;

/** The fields of a slash command payload the adapter reads. */
interface SlashPayload {
  command?: string;
  text?: string;
  user_id?: string;
  channel_id?: string;
  team_id?: string;
  trigger_id?: string;
}

/**
 * Registers the slash command (`channels.slack.slashCommand`, default `/switchboard`) in both
 * modes: Socket Mode `slash_commands` envelopes and HTTP mode's signed form POSTs to the events
 * path. `/switchboard status now` runs the chat command `/status now`; no words: `/help`.
 *
 * It is acknowledged at once, before the dispatch (the listener returns right after `ack()`, so
 * neither HTTP mode's held 200 nor Socket Mode's held envelope ack waits for it: Slack allows 3 s).
 * A sender the bot would not hear there (`dmPolicy`, `allowFrom`, the `channels` list, as for a
 * message that mentions it) is told so, to them alone, and nothing is dispatched.
 * The command goes to the same `InboundHandler` as a message, as `nativeCommand`, so the router's
 * table and owner checks apply and the answer comes back in the `DispatchResult`: posted in the
 * channel (or DM), or to the sender alone (`chat.postEphemeral`) when the reply is `senderOnly`
 * (an error, owner-only output) or the dispatch failed.
 */
export function listenForSlashCommand(state: SlackState): void {
  const name = state.config.slashCommand ?? DEFAULT_SLASH_COMMAND;
  state.bolt.app.command(name, async ({ ack, command }) => {
    await ack();
    void answerCommand(state, command as SlashPayload).catch((error: unknown) =>
      state.logger.error({ err: error }, 'slack slash command not answered'),
    );
  });
}

async function answerCommand(state: SlackState, payload: SlashPayload): Promise<void> {
  const { logger } = state;
  const user = payload.user_id;
  const channel = payload.channel_id;
  const handler = state.onInbound;
  if (user === undefined || channel === undefined || handler === undefined) {
    logger.warn(
      { hasUser: user !== undefined, hasChannel: channel !== undefined },
      'slack slash command not dispatched',
    );
    return;
  }
  const where = { channel, user };
  if (!heard(state, { channel, user })) {
    await tellSender(state, where, NOT_HERE);
    return;
  }
  const text = commandText(payload.text ?? '');
  if (text === undefined) {
    await tellSender(
      state,
      where,
      `Usage: ${payload.command ?? DEFAULT_SLASH_COMMAND} <command> [args], e.g. status or help.`,
    );
    return;
  }
  const message = toCommandMessage(payload, { user, channel, text });
  if (message.chatType === 'direct') state.directChannels.set(user, channel);
  let result: DispatchResult;
  try {
    result = await handler(message);
  } catch (error) {
    logger.error({ err: error, channel }, 'slack slash command dispatch failed');
    await tellSender(
      state,
      where,
      'That command could not be handled; try again, or type it after a mention.',
    );
    return;
  }
  for (const reply of result.replies) await show(state, where, message, reply);
}

/**
 * Whether the bot hears the sender there, by the same rules as a message that mentions it: DMs by
 * `dmPolicy` / `allowFrom`, channels by the `channels` list.
 */
function heard(state: SlackState, facts: { channel: string; user: string }): boolean {
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
  return shouldHear(event, state.config, {
    botUserId: state.botUserId,
    botId: state.botId,
    inThread: () => false,
  });
}

/** `status now` → `/status now`; empty → `/help`; a first word that is no command name → undefined. */
export function commandText(words: string): string | undefined {
  const trimmed = words.trim().replace(/^\//, '');
  if (trimmed === '') return '/help';
  const [first = ''] = trimmed.split(/\s/, 1);
  return COMMAND_WORD.test(first) ? `/${trimmed}` : undefined;
}

/** The command as every adapter's message: in a channel its conversation is the channel itself. */
function toCommandMessage(
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

/** In the channel (or DM) for everyone, or to the sender alone; a failed post tells the sender. */
async function show(
  state: SlackState,
  where: { channel: string; user: string },
  message: InboundMessage,
  reply: OutboundMessage,
): Promise<void> {
  if (reply.senderOnly === true) return tellSender(state, where, reply.text);
  const route = { channel: 'slack', chatType: message.chatType, chatId: message.chatId } as const;
  try {
    await postReply(state, route, reply);
  } catch {
    // Not in the channel (`not_in_channel`), or Slack refused: the sender still gets the answer.
    await tellSender(state, where, reply.text);
  }
}

/** Ephemeral parts to the sender; failures only logged. */
async function tellSender(
  state: SlackState,
  where: { channel: string; user: string },
  text: string,
): Promise<void> {
  for (const part of splitMessage(text, SLACK_TEXT_LIMIT)) {
    const sent = await state.client.chat
      .postEphemeral({ channel: where.channel, user: where.user, text: part })
      .then(
        () => true,
        (error: unknown) => {
          state.logger.warn({ err: error, channel: where.channel }, 'chat.postEphemeral failed');
          return false;
        },
      );
    if (!sent) return;
  }
}
