import path from 'node:path';
import {
  type Config,
  collectSecretValues,
  createSecretScrubber,
  DEFAULT_CONFIG_PATH,
  modelChainText,
} from '../../base/config/index.js';
import type { Logger } from '../../base/logging/index.js';
import { communicationPolicy } from '../../base/messages/index.js';
import {
  createToolRegistry,
  GATEWAY_TOOLS,
  type RiskSummaries,
  type RiskSummary,
  riskSummary,
  type Tool,
  type ToolRegistry,
  unmetRequirement,
  withRiskOverride,
} from '../../engine/tools/index.js';
import { createMcpServers } from '../../extensions/mcp/index.js';
import {
  createBuiltinToolpackTools,
  createCompletionRecords,
  createCoreTools,
  declaredTool,
  type LoadToolpacksResult,
} from '../../extensions/toolpacks/index.js';
import { createStore } from '../../records/store/index.js';
import type { AgentRiskStatus } from './contracts.js';

/** One agent as `switchboard agents` and `doctor` show it. */
export interface AgentRiskView {
  agentId: string;
  /** `a → b`, or `(no model)`. */
  models: string;
  risk: RiskSummary;
}

/**
 * The registry a start would build from this config, for describing it without starting: the
 * built-ins, the built-in toolpacks and the local toolpacks the check loaded, with `tools.risk`
 * and `requires` applied as the gateway applies them. Nothing in it runs (a local toolpack's tool
 * refuses), and each MCP server's tools (the server started once); tools passed in code (gateway
 * options) are not known here.
 */
export async function describeRegistry(options: {
  config: Config;
  configPath: string | undefined;
  toolpacks: LoadToolpacksResult;
  logger: Logger;
}): Promise<ToolRegistry> {
  const { config, toolpacks } = options;
  const registry = createToolRegistry({ unmet: (tool) => unmetRequirement(tool, config) });
  const add = (tool: Tool, source: string) =>
    registry.register(withRiskOverride(tool, config.tools.risk), source);
  const packOptions = {
    config,
    configPath: options.configPath ?? path.resolve(DEFAULT_CONFIG_PATH),
    stateDir: path.resolve(config.stateDir),
  };
  for (const tool of GATEWAY_TOOLS) add(tool, 'builtin');
  // `completion.submit` is made over a store; this one is never written.
  const store = await createStore({
    url: 'memory://',
    stateDir: packOptions.stateDir,
    logger: options.logger,
  });
  const seen = new Set<string>();
  for (const name of toolpacks.builtins) {
    const tools =
      name === 'core'
        ? createCoreTools({
            ...packOptions,
            send: async () => ({ ok: false, reason: 'not running' }),
            routes: config.routes,
            policy: communicationPolicy(config),
            completions: createCompletionRecords({ store }),
          })
        : createBuiltinToolpackTools(name, packOptions);
    // `core` carries the file tools: a `file` entry beside it adds nothing (as at a start).
    for (const tool of tools.filter((entry) => !seen.has(entry.name))) {
      seen.add(tool.name);
      add(tool, `toolpack ${name}`);
    }
  }
  for (const toolpack of toolpacks.toolpacks) {
    for (const declared of toolpack.tools)
      add(
        declaredTool(declared, () => ({ ok: false, reason: 'not running' })),
        `toolpack ${toolpack.id}`,
      );
  }
  await store.close();
  await addMcpTools({ ...options, configPath: packOptions.configPath }, add);
  return registry;
}

/**
 * The tools of each MCP server that comes up when started once (as doctor's probe does): a server's
 * tools are known only from the server. Registered as they would be at a start, but without their
 * live availability (the servers are stopped again). A server that does not come up adds none.
 */
async function addMcpTools(
  options: { config: Config; configPath: string; logger: Logger },
  add: (tool: Tool, source: string) => void,
): Promise<void> {
  const { config } = options;
  if (Object.keys(config.mcp.servers).length === 0) return;
  const scrub = createSecretScrubber(collectSecretValues(config));
  const servers = createMcpServers({ ...options, scrub });
  try {
    await servers.start();
    servers.attach({
      register: ({ unavailable: _live, ...tool }, source) => add(tool, source),
      unregister: () => undefined,
    });
  } finally {
    await servers.stop();
  }
}

/** Each configured agent, its model chain and its risk summary over `registry`. */
export function describeAgents(config: Config, registry: ToolRegistry): AgentRiskView[] {
  return agentViews(config, (allowlist) => riskSummary(registry, allowlist));
}

function agentViews(config: Config, summarize: RiskSummaries): AgentRiskView[] {
  return Object.entries(config.agents).map(([agentId, agent]) => ({
    agentId,
    models: agent.model ? modelChainText(config, agent.model) : '(no model)',
    risk: summarize(agent.tools),
  }));
}

/** The health page's view of each agent (`GET /api/status`, `agents`), from the running gateway's kept summaries. */
export function agentStatuses(config: Config, summarize: RiskSummaries): AgentRiskStatus[] {
  return agentViews(config, summarize).map(({ agentId, models, risk }) => ({
    id: agentId,
    models,
    risk: risk.all,
    ownerOnly: risk.ownerOnly,
    unavailable: risk.unavailable,
  }));
}
