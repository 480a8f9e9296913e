import { fail, ok, type Result } from '../../../base/errors/index.js';
import { networkCode } from '../network-error.js';
import type { DiscordConfig } from './should-hear.js';

/**
 * What a credential check found: who the bot is (the value), or why it cannot work (the error,
 * naming the config field at fault and what to do; it never contains the token).
 */
export type DiscordCredentialCheck = Result<string, string>;

/** discord.js's REST default; the adapter passes `apiBase` to it unchanged, and so does this check. */
const DISCORD_API_BASE = 'https://discord.com/api';
const API_VERSION = 10;
const CHECK_TIMEOUT_MS = 10_000;
/** Discord asks bots for `DiscordBot (url, version)`; requests without one may be blocked. */
const USER_AGENT = 'DiscordBot (https://github.com/switchboard, 0.1.0)';

/**
 * Checks `channels.discord.token` with `GET /users/@me` (what discord.js's login does first),
 * without opening the gateway. One request, no retries, given up after `timeoutMs` (10 s).
 * Never throws.
 */
export async function checkDiscordCredentials(
  config: Pick<DiscordConfig, 'token' | 'apiBase'>,
  options: { timeoutMs?: number } = {},
): Promise<DiscordCredentialCheck> {
  const apiBase = config.apiBase ?? DISCORD_API_BASE;
  const timeoutMs = options.timeoutMs ?? CHECK_TIMEOUT_MS;
  const checkBase = config.apiBase === undefined ? '; check the network' : '; check channels.discord.apiBase';
  // discord.js accepts the token with a `Bot ` prefix too, and strips it the same way.
  const token = config.token.replace(/^(Bot|Bearer)\s*/i, '');
  let response: Response;
  try {
    response = await fetch(`${apiBase}/v${API_VERSION}/users/@me`, {
      headers: { authorization: `Bot ${token}`, 'user-agent': USER_AGENT },
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const failure = error as { name?: string };
    if (failure.name === 'TimeoutError' || failure.name === 'AbortError')
      return fail(
        `could not reach Discord at ${apiBase} (no answer within ${timeoutMs / 1000} s)${checkBase}`,
      );
    return fail(`could not reach Discord at ${apiBase} (${networkCode(error)})${checkBase}`);
  }
  const status = `${response.status} ${response.statusText}`.trimEnd();
  if (response.status === 401 || response.status === 403) {
    await response.body?.cancel();
    return fail(`channels.discord.token was refused by Discord (${status}); check the token`);
  }
  if (response.status === 429) {
    await response.body?.cancel();
    const retryAfter = response.headers.get('retry-after');
    return fail(
      `Discord rate-limited the check${retryAfter ? ` (retry in ${retryAfter} s)` : ''}; run it again later`,
    );
  }
  if (!response.ok) {
    await response.body?.cancel();
    return fail(`Discord at ${apiBase} answered ${status}${checkBase}`);
  }
  const user = (await response.json().catch(() => ({}))) as { id?: unknown; username?: unknown };
  if (typeof user.id !== 'string')
    return fail(`Discord at ${apiBase} answered without a bot user${checkBase}`);
  return ok(`bot @${String(user.username)} (${user.id})`);
}
