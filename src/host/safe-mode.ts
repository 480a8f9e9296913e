import type { SafeModeState } from '../app/index.js';
import type { LoadedConfig } from '../base/config/index.js';

export type { SafeModeState };

const BUILTIN_TOOLPACKS = new Set(['core', 'file', 'shell', 'web']);

/**
 * Pure: the config a safe-mode gateway runs, in memory only (never written: the file keeps every
 * channel, toolpack and server; OpenClaw's safe mode stripped channel config, #134134). No Slack
 * or Discord connection, no local toolpack (so no runner or controller), no MCP server. The web
 * chat, HTTP and the control UI stay; the scheduler tick is not started (`create-gateway.ts`).
 * `text` and `hash` stay the file's, so edits go against the file as it is.
 */
export function safeModeConfig(loaded: LoadedConfig): LoadedConfig {
  const { config } = loaded;
  const { slack: _slack, discord: _discord, ...channels } = config.channels;
  const servers = Object.fromEntries(
    Object.entries(config.mcp.servers).map(([name, server]) => [name, { ...server, enabled: false }]),
  );
  return {
    ...loaded,
    config: {
      ...config,
      channels,
      tools: {
        ...config.tools,
        toolpacks: config.tools.toolpacks.filter(
          (entry) => typeof entry === 'string' && BUILTIN_TOOLPACKS.has(entry),
        ),
      },
      mcp: { ...config.mcp, servers },
    },
  };
}
