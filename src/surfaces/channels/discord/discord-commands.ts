import {
  ApplicationCommandOptionType,
  type ChatInputCommandInteraction,
  type CommandInteractionOption,
  MessageFlags,
} from 'discord.js';
import type { Logger } from '../../../base/logging/index.js';
import type {
  CommandOption,
  DispatchResult,
  InboundHandler,
  InboundMessage,
  NativeCommand,
  OutboundMessage,
} from '../../../base/messages/index.js';
import type { DirectChannels } from '../direct-channels.js';
import { splitMessage } from '../split-message.js';
import { ARGS_OPTION } from './command-registration.js';
import { renderButtons } from './components.js';
import { embedFlags } from './discord-send.js';
import { type DiscordConfig, type HearSettings, shouldHear } from './should-hear.js';

/** What a command run is checked, dispatched and answered with. */
export interface CommandOptions {
  config: DiscordConfig;
  logger: Logger;
  directChannels: DirectChannels;
  /** The router's command table (as registered). */
  commands: readonly NativeCommand[] | undefined;
  /** The router's dispatch while the adapter runs; undefined while it is stopped. */
  handler(): InboundHandler | undefined;
  /** The bot's user id, once logged in. */
  botId(): string | undefined;
}

/** Discord's limit on a message's content. */
const MESSAGE_LIMIT = 2000;
/** To a user the bot does not hear where they ran the command (as for their messages). */
const NOT_HERE = 'I do not take commands from you here (not here, or not from you): ask an owner.';
const NOT_HANDLED = 'That command could not be handled; try again, or type it after a mention.';

/**
 * A user ran one of the bot's commands, transport only: refused to them alone where the bot would
 * not hear their message (`shouldHear`, as if it mentioned the bot), else deferred at once (before the dispatch:
 * Discord allows 3 s; for the sender alone when the command is owner-only or unknown), dispatched
 * as the chat command `/name words` (`nativeCommand`, the options in the command's order), and the
 * deferred reply edited to the answer. A `senderOnly` answer after a public deferral replaces it by
 * an ephemeral follow-up. A replayed interaction (Discord refuses its second deferral) is not
 * dispatched twice. Never throws.
 */
export async function handleCommand(
  interaction: ChatInputCommandInteraction,
  options: CommandOptions,
): Promise<void> {
  const { logger } = options;
  const handler = options.handler();
  if (handler === undefined) return;
  const spec = options.commands?.find((command) => command.name === interaction.commandName);
  const privately = spec === undefined || spec.ownerOnly === true;
  const log = { interactionId: interaction.id, command: interaction.commandName };
  if (!heard(options.config, options.botId(), interaction)) {
    await interaction
      .reply({ content: NOT_HERE, flags: MessageFlags.Ephemeral })
      .catch((error: unknown) => logger.warn({ err: error, ...log }, 'discord command refusal failed'));
    return;
  }
  try {
    await interaction.deferReply(privately ? { flags: MessageFlags.Ephemeral } : {});
  } catch (error) {
    logger.warn({ err: error, ...log }, 'discord command could not be deferred; not dispatched');
    return;
  }
  const inbound = toCommandMessage(interaction, spec);
  if (inbound.chatType === 'direct') options.directChannels.learn(interaction.user.id, interaction.channelId);
  let result: DispatchResult;
  try {
    result = await handler(inbound);
  } catch (error) {
    logger.error({ err: error, ...log }, 'discord command was not handled');
    result = { sessionKey: '', replies: [{ id: 'failed', text: NOT_HANDLED, senderOnly: true }] };
  }
  try {
    await showReplies(interaction, result.replies, privately, (content) =>
      embedFlags(options.config, inbound, content),
    );
  } catch (error) {
    logger.error({ err: error, ...log }, 'discord command answer failed');
  }
}

async function showReplies(
  interaction: ChatInputCommandInteraction,
  replies: readonly OutboundMessage[],
  privately: boolean,
  /** The message flags for a part: SUPPRESS_EMBEDS unless its links may be previewed. */
  flagsOf: (content: string) => number,
): Promise<void> {
  let original = true;
  for (const reply of replies) {
    const parts = splitMessage(reply.text.trim() === '' ? 'Done.' : reply.text, MESSAGE_LIMIT);
    const ephemeral = privately || reply.senderOnly === true;
    for (const [index, content] of parts.entries()) {
      const suppress = flagsOf(content);
      const message = {
        content,
        allowedMentions: { parse: ['users' as const] },
        flags: suppress,
        ...(index === parts.length - 1 ? { components: renderButtons(reply.actions).rows } : {}),
      };
      if (original && ephemeral === privately) await interaction.editReply(message);
      else {
        // The public "thinking…" cannot turn private: it goes, the answer follows to the sender alone.
        if (original) await interaction.deleteReply();
        await interaction.followUp({
          ...message,
          flags: ephemeral ? MessageFlags.Ephemeral | suppress : suppress,
        });
      }
      original = false;
    }
  }
}

/**
 * Whether the bot hears the user there, by the same rules as a message that mentions it: DMs by
 * `dmPolicy` / `allowFrom`, guilds and channels by their lists.
 */
function heard(
  settings: HearSettings,
  botId: string | undefined,
  interaction: ChatInputCommandInteraction,
): boolean {
  if (botId === undefined) return false;
  const thread = interaction.channel?.isThread() ? interaction.channel : undefined;
  const candidate = {
    authorId: interaction.user.id,
    authorIsBot: interaction.user.bot,
    guildId: interaction.guildId ?? undefined,
    channelId: thread?.parentId ?? interaction.channelId,
    threadId: thread?.id,
    mentionsBot: true,
  };
  return shouldHear(candidate, settings, { botId, activeThreads: new Set() });
}

/** The interaction as every adapter's message, routed like a message in the same place. */
function toCommandMessage(
  interaction: ChatInputCommandInteraction,
  spec: NativeCommand | undefined,
): InboundMessage {
  const userId = interaction.user.id;
  const guildId = interaction.guildId ?? undefined;
  const channel = interaction.channel;
  const thread = channel?.isThread() ? channel : undefined;
  const words = wordsOf(interaction.options.data, spec?.options ?? [ARGS_OPTION]);
  return {
    channel: 'discord',
    chatType: guildId === undefined ? 'direct' : 'channel',
    chatId: guildId === undefined ? userId : (thread?.parentId ?? interaction.channelId),
    ...(thread === undefined ? {} : { threadId: thread.id }),
    senderId: `discord:${userId}`,
    text: [`/${interaction.commandName}`, ...words].join(' '),
    messageId: `command:${interaction.id}`,
    ...(guildId === undefined ? {} : { guildId }),
    nativeCommand: true,
  };
}

/** The options as the text command's words, in the command's order: a subcommand's name, then its own. */
function wordsOf(used: readonly CommandInteractionOption[], specs: readonly CommandOption[]): string[] {
  return specs.flatMap((spec) => {
    const option = used.find((candidate) => candidate.name === spec.name);
    if (option === undefined) return [];
    if (option.type === ApplicationCommandOptionType.Subcommand)
      return [option.name, ...wordsOf(option.options ?? [], spec.options ?? [])];
    return option.value === undefined || option.value === null ? [] : [String(option.value)];
  });
}
