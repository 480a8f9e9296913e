import type { Config } from '../../base/config/index.js';
import type { Logger } from '../../base/logging/index.js';
import type { McpServerStatus } from './mcp-connection.js';
import { createMcpServers } from './mcp-servers.js';

/**
 * Connects to every enabled MCP server once (stdio servers are started), lists its tools, and
 * stops them all: `switchboard doctor`'s check that each server would come up.
 */
export async function probeMcpServers(options: {
  config: Config;
  configPath: string;
  logger: Logger;
  scrub(text: string): string;
}): Promise<McpServerStatus[]> {
  const servers = createMcpServers(options);
  try {
    await servers.start();
    return servers.statuses();
  } finally {
    await servers.stop();
  }
}
