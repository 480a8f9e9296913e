import { webApi } from '@slack/bolt';
import { fail, ok, type Result } from '../../../base/errors/index.js';
import { networkCode } from '../network-error.js';
import { type SlackConfig, slackApiUrl } from './types.js';

/**
 * What a credential check found: who the bot is (the value), or why it cannot work (the error,
 * naming the config field at fault and what to do; it never contains a token).
 */
export type SlackCredentialCheck = Result<string, string>;

const CHECK_TIMEOUT_MS = 10_000;

/** Slack's answers that mean the token itself was not accepted. */
const REFUSED_TOKEN_ERRORS = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'not_allowed_token_type',
  'missing_scope',
]);

/** Whether a Web API error means Slack did not accept the token (as opposed to being unreachable or down). */
export function isRefusedTokenError(error: unknown): boolean {
  const failure = error as SlackFailure | undefined;
  return (
    failure?.code === webApi.ErrorCode.PlatformError &&
    REFUSED_TOKEN_ERRORS.has(String(failure.data?.error ?? ''))
  );
}

/** Slack's Web API client without its console logging: failures come back in the result. */
const SILENT_LOGGER: NonNullable<webApi.WebClientOptions['logger']> = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  setLevel: () => {},
  getLevel: () => webApi.LogLevel.ERROR,
  setName: () => {},
};

/**
 * Checks `channels.slack` against Slack without connecting: `auth.test` with the bot token and,
 * in Socket Mode, `apps.connections.open` with the app token (which only hands out a WebSocket
 * URL). No retries; the whole check gives up after `timeoutMs` (10 s). Never throws.
 */
export async function checkSlackCredentials(
  // A loaded config has the credential its mode needs (the config validation checks it).
  config: Pick<SlackConfig, 'mode' | 'botToken' | 'appToken' | 'apiUrl'>,
  options: { timeoutMs?: number } = {},
): Promise<SlackCredentialCheck> {
  const apiUrl = slackApiUrl(config);
  const timeoutMs = options.timeoutMs ?? CHECK_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  const client = () =>
    new webApi.WebClient(undefined, {
      slackApiUrl: apiUrl,
      logger: SILENT_LOGGER,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      // Per request; the second call gets what is left of the first one's time.
      timeout: Math.max(1, deadline - Date.now()),
    });
  const where = { apiUrl, configured: config.apiUrl !== undefined, timeoutMs };

  let identity: string;
  try {
    const auth = await client().auth.test({ token: config.botToken });
    identity = `bot @${auth.user ?? 'unknown'} (${auth.user_id ?? 'no user id'}) in team ${auth.team_id ?? 'unknown'}`;
  } catch (error) {
    return fail(describeFailure('channels.slack.botToken', 'auth.test', error, where));
  }
  if (config.mode === 'http' || config.appToken === undefined)
    return ok(`${identity}; http mode (the signing secret is checked on each event)`);
  try {
    await client().apps.connections.open({ token: config.appToken });
  } catch (error) {
    return fail(describeFailure('channels.slack.appToken', 'apps.connections.open', error, where));
  }
  return ok(`${identity}; socket mode app token accepted`);
}

/** The fields of @slack/web-api's errors (by `code`) that a failure is described from. */
interface SlackFailure {
  code?: string;
  message?: string;
  data?: { error?: string };
  original?: Error;
  statusCode?: number;
  statusMessage?: string;
  retryAfter?: number;
}

/** One line naming `field` and what to do; Slack's error codes and network codes never carry the token. */
function describeFailure(
  field: string,
  method: string,
  error: unknown,
  where: { apiUrl: string; configured: boolean; timeoutMs: number },
): string {
  const checkUrl = where.configured ? '; check channels.slack.apiUrl and the network' : '; check the network';
  const failure = error as SlackFailure;
  switch (failure.code) {
    case webApi.ErrorCode.PlatformError: {
      const code = String(failure.data?.error ?? 'unknown_error');
      if (REFUSED_TOKEN_ERRORS.has(code)) return `${field} was refused by Slack (${code}); check the token`;
      return `Slack answered ${method} for ${field} with ${code}`;
    }
    case webApi.ErrorCode.RequestError: {
      const original = failure.original;
      if (original?.name === 'TimeoutError' || original?.name === 'AbortError')
        return `could not reach Slack at ${where.apiUrl} (no answer within ${where.timeoutMs / 1000} s)${checkUrl}`;
      return `could not reach Slack at ${where.apiUrl} (${networkCode(original)})${checkUrl}`;
    }
    case webApi.ErrorCode.HTTPError:
      return (
        `Slack at ${where.apiUrl} answered ${method} with HTTP ${failure.statusCode} ${failure.statusMessage ?? ''}`.trimEnd() +
        checkUrl
      );
    case webApi.ErrorCode.RateLimitedError:
      return `Slack rate-limited ${method} (retry in ${failure.retryAfter} s); run the check again later`;
    default:
      return `checking ${field} with ${method} failed (${failure.message ?? String(error)})`;
  }
}
