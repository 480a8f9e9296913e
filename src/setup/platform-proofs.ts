import { fail, ok, type Result } from '../base/errors/index.js';
import { checkChannelCredentials } from '../surfaces/channels/index.js';
import { discordInviteUrl } from './discord-invite.js';
import type { SetupRefusal } from './setup-refusal.js';

type Channels = Parameters<typeof checkChannelCredentials>[0];

/** A platform whose tokens the platform accepted: its config entry (`${NAME}` only) and the secrets. */
export interface ProvedPlatform {
  text: string;
  entry: Record<string, unknown>;
  secrets: Record<string, string>;
  /** Discord: where to invite the bot (its application id is the token's first part). */
  invite?: string;
}

/** Slack's answers; an empty token keeps the one the environment (the env file) has. */
export interface SlackAnswer {
  botToken?: string | undefined;
  appToken?: string | undefined;
  /** Another Slack Web API address (GovSlack, or a test's fake); default slack.com's. */
  apiUrl?: string | undefined;
}

export interface DiscordAnswer {
  token?: string | undefined;
  /** Another Discord API address (a test's fake); default discord.com's. */
  apiBase?: string | undefined;
}

/** Slack in Socket Mode: the bot token proved by `auth.test`, the app-level token by `apps.connections.open`. */
export async function proveSlack(
  answer: SlackAnswer,
  environment: NodeJS.ProcessEnv,
): Promise<Result<ProvedPlatform, SetupRefusal>> {
  const botToken = answer.botToken || environment.SLACK_BOT_TOKEN || '';
  const appToken = answer.appToken || environment.SLACK_APP_TOKEN || '';
  if (!botToken) return fail({ field: 'slack.botToken', message: 'Slack needs the bot token (xoxb-…)' });
  if (!appToken)
    return fail({ field: 'slack.appToken', message: 'Slack needs the app-level token (xapp-…)' });
  const apiUrl = answer.apiUrl || undefined;
  const [check] = await checkChannelCredentials({
    slack: { mode: 'socket', botToken, appToken, ...(apiUrl ? { apiUrl } : {}) } as Channels['slack'],
  });
  if (!check?.result.ok) {
    const error = check?.result.ok === false ? check.result.error : 'no answer';
    return fail({
      field: /appToken|apps\.connections/.test(error) ? 'slack.appToken' : 'slack.botToken',
      message: `Slack refused: ${error}`,
    });
  }
  return ok({
    text: check.result.value,
    entry: { botToken: '${SLACK_BOT_TOKEN}', appToken: '${SLACK_APP_TOKEN}', ...(apiUrl ? { apiUrl } : {}) },
    secrets: { SLACK_BOT_TOKEN: botToken, SLACK_APP_TOKEN: appToken },
  });
}

/** Discord: the bot token proved by `users/@me`, and the invite for the bot it names. */
export async function proveDiscord(
  answer: DiscordAnswer,
  environment: NodeJS.ProcessEnv,
): Promise<Result<ProvedPlatform, SetupRefusal>> {
  const token = answer.token || environment.DISCORD_TOKEN || '';
  if (!token) return fail({ field: 'discord.token', message: 'Discord needs the bot token' });
  const apiBase = answer.apiBase || undefined;
  const [check] = await checkChannelCredentials({
    discord: { token, ...(apiBase ? { apiBase } : {}) } as Channels['discord'],
  });
  if (!check?.result.ok) {
    const error = check?.result.ok === false ? check.result.error : 'no answer';
    return fail({ field: 'discord.token', message: `Discord refused: ${error}` });
  }
  const clientId = applicationId(token);
  return ok({
    text: check.result.value,
    entry: { token: '${DISCORD_TOKEN}', ...(apiBase ? { apiBase } : {}) },
    secrets: { DISCORD_TOKEN: token },
    ...(clientId ? { invite: discordInviteUrl(clientId) } : {}),
  });
}

/** A bot token's first part is its user id in base64, which is the application's id. */
function applicationId(token: string): string | undefined {
  const first = token.replace(/^(Bot|Bearer)\s*/i, '').split('.')[0] ?? '';
  const decoded = Buffer.from(first, 'base64').toString('utf8');
  return /^[0-9]{17,20}$/.test(decoded) ? decoded : undefined;
}
