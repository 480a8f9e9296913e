import { createMcpServers, type McpServers } from '../extensions/mcp/index.js';
import type { Base } from './gateway-types.js';
import type { Part } from './part.js';

/**
 * The MCP servers, started in the background: HTTP serves at once, a server's tools appear when it
 * is ready. Stopped after the drain (no call waits on a server then; stdio servers exit with their
 * pipes closed).
 */
export function mcpPart(): Part<{ base: Base; scrub(text: string): string }, McpServers> {
  let mcp: McpServers | undefined;
  return {
    name: 'mcp',
    async start({ base, scrub }) {
      const logger = base.logger.child({ component: 'mcp' });
      const servers = createMcpServers({
        config: base.config,
        configPath: base.configPath,
        logger,
        scrub,
        stateDir: base.stateDir,
      });
      mcp = servers;
      servers.start().catch((error: unknown) => logger.error({ err: error }, 'MCP servers did not start'));
      return servers;
    },
    async stop() {
      await mcp?.stop();
    },
  };
}
