import type { App } from '@slack/bolt';
import type { Logger } from '../../../base/logging/index.js';
import type {
  DispatchResult,
  InboundHandler,
  InboundMessage,
  OutboundMessage,
} from '../../../base/messages/index.js';
import type { DirectChannels } from '../direct-channels.js';
import { splitMessage } from '../split-message.js';
import { commandText, heard, type SlashPayload, toCommandMessage } from './command-message.js';
import { SLACK_TEXT_LIMIT, type SlackSender } from './slack-send.js';
import type { SlackConfig, SlackIdentity } from './types.js';

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
export function listenForSlashCommand(options: SlashCommandOptions): void {
  const name = options.config.slashCommand ?? DEFAULT_SLASH_COMMAND;
  options.app.command(name, async ({ ack, command }) => {
    await ack();
    void answerCommand(options, command as SlashPayload).catch((error: unknown) =>
      options.logger.error({ err: error }, 'slack slash command not answered'),
    );
  });
}

/** What the slash command's listener reads and posts with. */
export interface SlashCommandOptions {
  app: App;
  client: App['client'];
  config: SlackConfig;
  logger: Logger;
  directChannels: DirectChannels;
  sender: SlackSender;
  /** The router's dispatch while the adapter runs; undefined while it is stopped. */
  handler(): InboundHandler | undefined;
  identity(): SlackIdentity;
}

async function answerCommand(options: SlashCommandOptions, payload: SlashPayload): Promise<void> {
  const { logger } = options;
  const user = payload.user_id;
  const channel = payload.channel_id;
  const handler = options.handler();
  if (user === undefined || channel === undefined || handler === undefined) {
    logger.warn(
      { hasUser: user !== undefined, hasChannel: channel !== undefined },
      'slack slash command not dispatched',
    );
    return;
  }
  const where = { channel, user };
  const tell = (text: string) => tellSender(options, where, text);
  if (!heard(options.config, options.identity(), where)) {
    await tell(NOT_HERE);
    return;
  }
  const text = commandText(payload.text ?? '');
  if (text === undefined) {
    await tell(`Usage: ${payload.command ?? DEFAULT_SLASH_COMMAND} <command> [args], e.g. status or help.`);
    return;
  }
  const message = toCommandMessage(payload, { user, channel, text });
  if (message.chatType === 'direct') options.directChannels.learn(user, channel);
  let result: DispatchResult;
  try {
    result = await handler(message);
  } catch (error) {
    logger.error({ err: error, channel }, 'slack slash command dispatch failed');
    await tell('That command could not be handled; try again, or type it after a mention.');
    return;
  }
  for (const reply of result.replies) await show(options.sender, tell, message, reply);
}

/** In the channel (or DM) for everyone, or to the sender alone; a failed post tells the sender. */
async function show(
  sender: SlackSender,
  tell: (text: string) => Promise<void>,
  message: InboundMessage,
  reply: OutboundMessage,
): Promise<void> {
  if (reply.senderOnly === true) return tell(reply.text);
  const route = { channel: 'slack', chatType: message.chatType, chatId: message.chatId } as const;
  try {
    await sender.post(route, reply);
  } catch {
    // Not in the channel (`not_in_channel`), or Slack refused: the sender still gets the answer.
    await tell(reply.text);
  }
}

/** Ephemeral parts to the sender; failures only logged. */
async function tellSender(
  { client, logger }: Pick<SlashCommandOptions, 'client' | 'logger'>,
  where: { channel: string; user: string },
  text: string,
): Promise<void> {
  for (const part of splitMessage(text, SLACK_TEXT_LIMIT)) {
    const sent = await client.chat
      .postEphemeral({ channel: where.channel, user: where.user, text: part })
      .then(
        () => true,
        (error: unknown) => {
          logger.warn({ err: error, channel: where.channel }, 'chat.postEphemeral failed');
          return false;
        },
      );
    if (!sent) return;
  }
}
