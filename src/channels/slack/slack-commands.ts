import type { DispatchResult, InboundMessage, OutboundMessage } from '../../messages/index.js';
import { splitMessage } from '../split-message.js';
import { commandText, heard, type SlashPayload, toCommandMessage } from './command-message.js';
import type { SlackState } from './slack-adapter.js';
import { postReply, SLACK_TEXT_LIMIT } from './slack-send.js';

/** The slash command when `channels.slack.slashCommand` is not set. */
export const DEFAULT_SLASH_COMMAND = '/switchboard';

/** To a sender the bot does not hear where they ran the command (as for their messages). */
const NOT_HERE = 'I do not take commands from you here (not here, or not from you): ask an owner.';

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
