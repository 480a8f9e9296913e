import { ApplicationCommandOptionType, type Client, Routes } from 'discord.js';
import type { Logger } from '../../../base/logging/index.js';
import type { CommandOption, NativeCommand } from '../../../base/messages/index.js';

/** Discord's limit on a command's or option's description. */
const DESCRIPTION_LIMIT = 100;
/** A command without typed options takes its words as one optional text. */
export const ARGS_OPTION: CommandOption = {
  kind: 'text',
  name: 'args',
  description: 'What follows the command, as after /name in a message.',
};

/** The application commands for `commands`, as Discord's bulk overwrite takes them. */
export function commandDefinitions(commands: readonly NativeCommand[]): Record<string, unknown>[] {
  return commands.map((command) => ({
    type: 1,
    name: command.name,
    description: cut(command.summary, DESCRIPTION_LIMIT),
    options: (command.options ?? [ARGS_OPTION]).map(optionDefinition),
  }));
}

function optionDefinition(option: CommandOption): Record<string, unknown> {
  const description = cut(option.description, DESCRIPTION_LIMIT);
  if (option.kind === 'subcommand')
    return {
      type: ApplicationCommandOptionType.Subcommand,
      name: option.name,
      description,
      options: (option.options ?? []).map(optionDefinition),
    };
  return {
    type: ApplicationCommandOptionType.String,
    name: option.name,
    description,
    required: option.required === true,
  };
}

/**
 * One bulk overwrite of the bot's commands at start: in each of `guilds` when set (there they show
 * at once), else globally. A refusal is logged: the text commands still work.
 */
export async function registerCommands(options: {
  client: Client | undefined;
  commands: readonly NativeCommand[] | undefined;
  guilds: readonly string[];
  logger: Logger;
}): Promise<void> {
  const { client, commands, guilds } = options;
  const applicationId = client?.application?.id ?? client?.user?.id;
  if (commands === undefined || client === undefined || applicationId === undefined) return;
  const body = commandDefinitions(commands);
  const routes =
    guilds.length === 0
      ? [Routes.applicationCommands(applicationId)]
      : guilds.map((guildId) => Routes.applicationGuildCommands(applicationId, guildId));
  for (const route of routes) {
    try {
      await client.rest.put(route, { body });
    } catch (error) {
      options.logger.error({ err: error, route }, 'discord commands not registered');
    }
  }
}

function cut(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}
