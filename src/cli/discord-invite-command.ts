import {
  DISCORD_INTENTS,
  DISCORD_PERMISSIONS,
  DISCORD_SCOPES,
  discordInviteUrl,
  discordPermissions,
} from '../setup/index.js';
import { printProblem } from './output.js';

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
