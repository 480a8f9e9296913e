import { type Config, collectSecretValues } from '../base/config/index.js';
import type { LoggerHandle } from '../base/logging/index.js';
import { mcpHeaderSecrets } from '../extensions/mcp/index.js';
import { storeUrlSecrets } from '../records/store/index.js';
import type { HttpToken } from './host-ports.js';

/**
 * The values scrubbed from the log (and from what the web UI shows): the config's secrets, the
 * password in `store.url` (a plain location stays readable), the token inside each MCP header value
 * and the HTTP token. A new token is
 * shown once, in the ready line, and only on a terminal (`showTokenLink`), so the web chat can be
 * opened; in a log file it would stay readable. After that it is a secret like the others.
 */
export function applyLogSecrets(
  log: LoggerHandle,
  config: Config,
  token: HttpToken,
  showTokenLink: boolean,
): { secrets: string[]; showToken: boolean } {
  const secrets = [
    ...new Set([
      ...collectSecretValues(config).filter((secret) => secret !== config.store.url),
      ...storeUrlSecrets(config.store.url),
      ...mcpHeaderSecrets(config),
      token.token,
    ]),
  ];
  const showToken = token.source === 'generated' && showTokenLink;
  // Shown on a terminal only: a log file (`log.file`) keeps it scrubbed.
  log.setSecrets(secrets, { terminalMayShow: showToken ? [token.token] : [] });
  if (showToken) log.logger.info({ file: token.file }, 'generated a new HTTP token');
  return { secrets, showToken };
}

/** Where the web chat opens: with the token only when it was just shown, else where it is. */
export function webchatSignIn(url: string, token: HttpToken, showToken: boolean): string {
  const signIn = showToken
    ? `/?token=${encodeURIComponent(token.token)}`
    : ` (sign in with /?token=<token from ${token.source === 'config' ? 'http.token' : token.file}>)`;
  return `${url}${signIn}`;
}
