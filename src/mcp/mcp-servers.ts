import type { Config } from '../config/index.js';
import { errorText } from '../errors/index.js';
import type { Logger } from '../logging/index.js';
import type { Tool } from '../tools/index.js';
import { createMcpConnection, type McpConnection, type McpServerStatus } from './mcp-connection.js';
import { createMcpTool, type McpToolInfo, mcpToolName } from './mcp-tool.js';

/** Where MCP tools go: the gateway's registry (with its wrappers), which may lose tools too. */
export interface McpToolTarget {
  register(tool: Tool, source: string): void;
  unregister(name: string): void;
}

export interface McpServers {
  /** Every enabled server's first attempt, at once; failures are reported and retried, not thrown. */
  start(): Promise<void>;
  /** Registers the servers' current tools now, and their changes from here on. */
  attach(target: McpToolTarget): void;
  statuses(): McpServerStatus[];
  /** Closes every connection and stops every stdio server; no retry fires after it. */
  stop(): Promise<void>;
}

export interface McpServersOptions {
  config: Config;
  configPath: string;
  logger: Logger;
  /** Removes secrets (header values, env values) from error texts. */
  scrub(text: string): string;
}

/**
 * The configured MCP servers. A server's tools stay registered while it is down (a call answers
 * which server is down and why); `list_changed` replaces them with the server's new list.
 */
export function createMcpServers(options: McpServersOptions): McpServers {
  const { logger } = options;
  const connections = new Map<string, McpConnection>();
  const listed = new Map<string, McpToolInfo[]>();
  const registered = new Map<string, string[]>();
  let target: McpToolTarget | undefined;

  function sync(server: string): void {
    if (!target) return;
    for (const name of registered.get(server) ?? []) target.unregister(name);
    const names: string[] = [];
    const connection = connections.get(server);
    const risk = options.config.mcp.servers[server]?.risk;
    for (const info of listed.get(server) ?? []) {
      if (!connection) break;
      const name = uniqueName(mcpToolName(server, info.name), names);
      try {
        target.register(
          createMcpTool({ server, name, info, risk, caller: connection }),
          `MCP server ${server}`,
        );
        names.push(name);
      } catch (error) {
        logger.warn({ mcpServer: server, tool: info.name, reason: errorText(error) }, 'MCP tool skipped');
      }
    }
    registered.set(server, names);
  }

  for (const [name, config] of Object.entries(options.config.mcp.servers)) {
    if (!config.enabled) continue;
    const connection = createMcpConnection({
      name,
      config,
      configPath: options.configPath,
      logger,
      scrub: options.scrub,
      onTools(tools) {
        listed.set(name, tools);
        sync(name);
      },
    });
    connections.set(name, connection);
  }

  return {
    async start() {
      await Promise.all([...connections.values()].map((connection) => connection.start()));
    },
    attach(next) {
      target = next;
      for (const server of connections.keys()) sync(server);
    },
    statuses: () => [...connections.values()].map((connection) => connection.status()),
    async stop() {
      await Promise.all([...connections.values()].map((connection) => connection.stop()));
    },
  };
}

/** Two tools whose names sanitize alike get `_2`, `_3`… in the order the server lists them. */
function uniqueName(name: string, taken: readonly string[]): string {
  if (!taken.includes(name)) return name;
  let index = 2;
  while (taken.includes(`${name}_${index}`)) index += 1;
  return `${name}_${index}`;
}
