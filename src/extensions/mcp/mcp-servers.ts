import path from 'node:path';
import type { Config } from '../../base/config/index.js';
import { errorText } from '../../base/errors/index.js';
import type { Logger } from '../../base/logging/index.js';
import type { Tool } from '../../engine/tools/index.js';
import { createMcpConnection, type McpConnection, type McpServerStatus } from './mcp-connection.js';
import { createMcpTool, type McpToolInfo, mcpToolName } from './mcp-tool.js';
import { createProcessGroupRecord, type ProcessGroupRecord } from './process-groups.js';

/** Where MCP tools go: the gateway's registry (with its wrappers), which may lose tools too. */
export interface McpToolTarget {
  register(tool: Tool, source: string): void;
  unregister(name: string): void;
}

export interface McpServers {
  /**
   * Reaps what a gateway killed by SIGKILL left running (with `stateDir`), then every enabled
   * server's first attempt, at once; resolves when those are done. Failures are reported and
   * retried, never thrown: the gateway does not wait for it (a server's tools appear when it is ready).
   */
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
  /**
   * The gateway's state dir: stdio servers' process groups are recorded under `mcp-groups/` and a
   * start reaps those of a process that is gone. Without it (doctor) nothing is recorded.
   */
  stateDir?: string | undefined;
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
  const groups: ProcessGroupRecord | undefined =
    options.stateDir === undefined
      ? undefined
      : createProcessGroupRecord({ dir: path.join(options.stateDir, 'mcp-groups'), logger });

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
      groups,
      onTools(tools) {
        listed.set(name, tools);
        sync(name);
      },
    });
    connections.set(name, connection);
  }

  return {
    async start() {
      reapLeftovers(groups, logger);
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

/** Ends the MCP servers a gateway killed by SIGKILL left running (their groups, as recorded). */
function reapLeftovers(groups: ProcessGroupRecord | undefined, logger: Logger): void {
  try {
    // The program only: its arguments may hold what the log must not.
    for (const group of groups?.reapLeftovers() ?? [])
      logger.warn(
        { pid: group.pid, program: path.basename(group.cmdline.split(' ')[0] ?? '') },
        'ended an MCP server a previous gateway left running',
      );
  } catch (error) {
    logger.warn({ err: error }, 'could not reap the MCP servers a previous gateway left running');
  }
}

/** Two tools whose names sanitize alike get `_2`, `_3`… in the order the server lists them. */
function uniqueName(name: string, taken: readonly string[]): string {
  if (!taken.includes(name)) return name;
  let index = 2;
  while (taken.includes(`${name}_${index}`)) index += 1;
  return `${name}_${index}`;
}
