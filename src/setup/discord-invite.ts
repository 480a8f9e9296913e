/**
 * What the gateway asks of Discord (discord.com/developers/docs/topics/permissions, .../gateway#gateway-intents).
 * `test/unit/discord-invite.test.ts` checks the bits against discord.js and the intents against the client's.
 */
export const DISCORD_PERMISSIONS: readonly { name: string; bit: bigint; why: string }[] = [
  { name: 'ViewChannel', bit: 1n << 10n, why: 'see the channels it may answer in' },
  { name: 'SendMessages', bit: 1n << 11n, why: 'reply' },
  { name: 'SendMessagesInThreads', bit: 1n << 38n, why: 'reply in threads' },
  { name: 'ReadMessageHistory', bit: 1n << 16n, why: "reply to a message, read a thread's earlier messages" },
  { name: 'AttachFiles', bit: 1n << 15n, why: 'upload files (chat.attach)' },
];

/**
 * The REST calls of the Discord adapter (`Routes.<name>` of discord.js, and discord.js methods that
 * call one) and the permissions each needs in the channel; `test/unit/discord-invite.test.ts` fails on
 * a call in src/surfaces/channels/discord that is not here. Interaction answers (defer, edit, follow up) use
 * the interaction's token and need none.
 */
export const DISCORD_CALLS: Readonly<Record<string, readonly string[]>> = {
  // A reply (a message reference to the one answered), in a thread too, with attachments.
  channelMessages: [
    'ViewChannel',
    'SendMessages',
    'SendMessagesInThreads',
    'ReadMessageHistory',
    'AttachFiles',
  ],
  // The bot's own message, edited as a reply streams.
  channelMessage: [],
  channelTyping: ['SendMessages'],
  // Slash commands: the invite's `applications.commands` scope.
  applicationCommands: [],
  applicationGuildCommands: [],
  // A thread's earlier messages and its starter message.
  'messages.fetch': ['ReadMessageHistory'],
  fetchStarterMessage: ['ReadMessageHistory'],
};

/** The OAuth2 scopes of the invite: the bot user, and the slash commands it registers. */
export const DISCORD_SCOPES = ['bot', 'applications.commands'] as const;

/** The gateway intents the client asks for; a privileged one must be switched on in the Developer Portal. */
export const DISCORD_INTENTS: readonly { name: string; privileged: boolean }[] = [
  { name: 'Guilds', privileged: false },
  { name: 'GuildMessages', privileged: false },
  { name: 'DirectMessages', privileged: false },
  { name: 'MessageContent', privileged: true },
];

/** The permissions integer of the invite: every bit of `DISCORD_PERMISSIONS`. */
export function discordPermissions(): bigint {
  return DISCORD_PERMISSIONS.reduce((sum, permission) => sum | permission.bit, 0n);
}

/** The invite URL for the application `clientId` (its Application ID); `guildId` preselects a server. */
export function discordInviteUrl(clientId: string, guildId?: string): string {
  const query = new URLSearchParams({
    client_id: clientId,
    scope: DISCORD_SCOPES.join(' '),
    permissions: discordPermissions().toString(),
    integration_type: '0',
    ...(guildId && { guild_id: guildId, disable_guild_select: 'true' }),
  });
  return `https://discord.com/oauth2/authorize?${query.toString().replace(/\+/g, '%20')}`;
}
