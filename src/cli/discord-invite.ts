import { printProblem } from './output.js';

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

const SNOWFLAKE = /^\d{17,20}$/;

/** `switchboard discord invite`: the URL, the permissions and the intents to switch on. */
export function runDiscordInvite(options: { clientId?: string; guild?: string }): void {
  for (const [flag, value] of [
    ['--client-id', options.clientId],
    ['--guild', options.guild],
  ] as const) {
    if (value !== undefined && !SNOWFLAKE.test(value)) {
      printProblem(`${flag} must be a Discord id (17 to 20 digits), not ${JSON.stringify(value)}`);
      return;
    }
  }
  const lines = [
    ...(options.clientId === undefined ? [] : [discordInviteUrl(options.clientId, options.guild), '']),
    `Scopes: ${DISCORD_SCOPES.join(', ')}`,
    `Permissions (${discordPermissions()}):`,
    ...DISCORD_PERMISSIONS.map((permission) => `  ${permission.name}: ${permission.why}`),
    'Intents (Developer Portal → your application → Bot → Privileged Gateway Intents):',
    ...DISCORD_INTENTS.map(
      (intent) =>
        `  ${intent.name}${intent.privileged ? ': privileged, switch it on' : ': standard, nothing to do'}`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  // The rest is still worth reading before the application exists; the URL needs its id.
  if (options.clientId === undefined)
    printProblem(
      'The invite URL needs --client-id <Application ID> (Developer Portal → General Information).',
    );
}
