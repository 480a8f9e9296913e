import { type ButtonInteraction, type Interaction, MessageFlags } from 'discord.js';
import type { Logger } from '../../../base/logging/index.js';
import type { DispatchResult, InboundHandler, InboundMessage } from '../../../base/messages/index.js';
import type { DirectChannels } from '../direct-channels.js';
import { renderButtons } from './components.js';
import { embedFlags } from './discord-send.js';
import type { DiscordConfig } from './should-hear.js';

/** Discord's limit on one message's content. */
const MESSAGE_LIMIT = 2000;
/** Shown (to the clicker only) for a menu or any other interaction: the bot posts no menus. */
const NOT_A_BUTTON = 'Only the buttons under my messages are answered here; nothing changed.';
/** Shown (to the clicker only) when the handler failed: nothing was decided, the buttons stay. */
const NOT_HANDLED = 'That click could not be handled; nothing changed. Answer in text as the message says.';

/** What a click is dispatched and answered with. */
export interface ClickOptions {
  config: DiscordConfig;
  logger: Logger;
  directChannels: DirectChannels;
  /** The router's dispatch while the adapter runs; undefined while it is stopped. */
  handler(): InboundHandler | undefined;
}

/**
 * A click on one of the bot's buttons, transport only: acknowledged at once (`deferUpdate`, before
 * the dispatch: Discord gives 3 s), dispatched as an `InboundMessage` whose `action` is the
 * button's `custom_id` unchanged and whose sender is the interaction's user, then the clicked
 * message is edited to the first reply's text, its buttons replaced by that reply's `actions`
 * (none: `components: []`). What the click means is the router's to decide. Any other interaction
 * (the bot posts no menus; its commands go to `discord-commands.ts`) is told so, to its user only. Never throws.
 */
export async function handleInteraction(interaction: Interaction, options: ClickOptions): Promise<void> {
  const { logger } = options;
  const handler = options.handler();
  if (handler === undefined) return;
  if (!interaction.isButton()) {
    if (!interaction.isRepliable()) return;
    await interaction
      .reply({ content: NOT_A_BUTTON, flags: MessageFlags.Ephemeral })
      .catch((error: unknown) =>
        logger.warn({ err: error, interactionId: interaction.id }, 'discord interaction answer failed'),
      );
    return;
  }
  const log = { interactionId: interaction.id, messageId: interaction.message.id };
  try {
    await interaction.deferUpdate();
  } catch (error) {
    // Discord refuses a second answer to one interaction: a replayed event is not dispatched twice.
    logger.warn({ err: error, ...log }, 'discord click could not be acknowledged; not dispatched');
    return;
  }
  const inbound = toClick(interaction);
  if (inbound.chatType === 'direct') options.directChannels.learn(interaction.user.id, interaction.channelId);
  let result: DispatchResult;
  try {
    result = await handler(inbound);
  } catch (error) {
    logger.error({ err: error, ...log }, 'discord click was not handled');
    await interaction
      .followUp({ content: NOT_HANDLED, flags: MessageFlags.Ephemeral })
      .catch((followError: unknown) => logger.warn({ err: followError, ...log }, 'discord follow-up failed'));
    return;
  }
  const answer = result.replies[0];
  if (answer === undefined || answer.text.trim() === '') return;
  try {
    await interaction.editReply({
      // The request stays readable (what was decided); the answer goes under it.
      content: clip(`${interaction.message.content}\n\n${answer.text}`),
      components: renderButtons(answer.actions).rows,
      flags: embedFlags(options.config, inbound, `${interaction.message.content}\n\n${answer.text}`),
      allowedMentions: { parse: ['users'] },
    });
  } catch (error) {
    logger.error({ err: error, ...log }, 'discord clicked message could not be edited');
  }
}

/**
 * The `InboundMessage` of a click: routed like a message in the same place (a thread's parent as
 * chat id, a DM by user id), `text` empty, `messageId` the interaction's id (one per click).
 */
export function toClick(interaction: ButtonInteraction): InboundMessage {
  const userId = interaction.user.id;
  const guildId = interaction.guildId ?? undefined;
  const channel = interaction.channel;
  const thread = channel?.isThread() ? channel : undefined;
  return {
    channel: 'discord',
    chatType: guildId === undefined ? 'direct' : 'channel',
    chatId: guildId === undefined ? userId : (thread?.parentId ?? interaction.channelId),
    ...(thread === undefined ? {} : { threadId: thread.id }),
    senderId: `discord:${userId}`,
    text: '',
    messageId: interaction.id,
    ...(guildId === undefined ? {} : { guildId }),
    action: interaction.customId,
  };
}

/** The edited text within Discord's limit (the answer to a click is a line; a long one is cut). */
function clip(text: string): string {
  return text.length <= MESSAGE_LIMIT ? text : `${text.slice(0, MESSAGE_LIMIT - 1)}…`;
}
