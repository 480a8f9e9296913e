import type { Config } from '../../base/config/index.js';

/** Shorter words of a header value (`Bearer`, `Basic`) are schemes, not secrets. */
const MIN_SECRET_PART = 8;

/**
 * The credential inside each MCP header value (`Bearer <token>` → `<token>`): the value as a whole
 * is a config secret already, but a server or an error may quote the token alone.
 */
export function mcpHeaderSecrets(config: Config): string[] {
  return Object.values(config.mcp.servers).flatMap((server) =>
    Object.values(server.headers).flatMap((value) =>
      value.split(/\s+/).filter((part) => part.length >= MIN_SECRET_PART && part !== value),
    ),
  );
}
