import type { FailoverState, TurnRunner } from '../engine/agents/index.js';
import { createRouter } from '../engine/routing/index.js';
import type { SignalDelivery } from '../engine/signals/index.js';
import { createSubagentManager, createSubagentRegistry } from '../engine/subagents/index.js';
import { createRiskSummaries } from '../engine/tools/index.js';
import { createBudgetGate } from '../engine/usage/index.js';
import type { McpServers } from '../extensions/mcp/index.js';
import type { ToolActivity, Toolpacks } from '../extensions/toolpacks/index.js';
import type { ModelHealth } from '../surfaces/control/index.js';
import { buildAgentRunner } from './build-agent-runner.js';
import { buildApprovals } from './build-approvals.js';
import { buildGatewayControl } from './build-control.js';
import { buildIdentity } from './build-identity.js';
import { createChatFiles } from './chat-files.js';
import type { Base } from './gateway-types.js';
import type { TurnPort } from './turn-port.js';
import { workspaceFile } from './workspace-files.js';

/** An agent the config does not name: no tools (one array, so its summary is kept too). */
const NO_TOOLS: readonly string[] = [];

/** What `buildTurns` takes besides the base. */
export interface TurnParts {
  turns: TurnPort;
  signals: SignalDelivery;
  toolpacks: Toolpacks;
  /** Records every registered tool's calls (the Tools page). */
  activity?: ToolActivity;
  secrets: readonly string[];
  scrub(text: string): string;
  /** Records each model's last call (the health page). */
  models?: ModelHealth;
  /** The MCP servers, whose tools join the registry. */
  mcp?: McpServers;
  /** The gateway's model cooldowns and last failover (the runner's chains, `/status`). */
  failover?: FailoverState;
}

/** The gateway control, the sub-agents, the agent runner and the router that runs its turns. */
export async function buildTurns(base: Base, parts: TurnParts) {
  const { options, config, logger, store, sessions, runs, configPath } = base;
  const { loaded } = options;
  const gateway = buildGatewayControl(base, {
    toolpackProblems: parts.toolpacks.problems,
    scrub: parts.scrub,
  });
  const approvals = buildApprovals(base, { gateway, scrub: parts.scrub });
  const subagents = createSubagentManager({
    config,
    registry: createSubagentRegistry({ store }),
    sessions,
    runs,
    turns: parts.turns,
    store,
    logger: logger.child({ component: 'subagents' }),
    outboundFor: base.channels.outboundFor,
  });
  const { runner: agentRunner, registry } = await buildAgentRunner({
    config,
    configPath,
    extensions: options,
    sessions,
    runs,
    store,
    builtinToolpacks: parts.toolpacks.builtins,
    toolpackTools: parts.toolpacks.tools,
    sendMessage: parts.signals.send,
    toolSucceeded: parts.signals.supervision.toolSucceeded,
    ...(parts.activity ? { activity: parts.activity } : {}),
    turns: parts.turns,
    gateway,
    subagents,
    approvals,
    ...(parts.models ? { models: parts.models } : {}),
    ...(parts.failover ? { failover: parts.failover } : {}),
    ...(parts.mcp ? { mcp: parts.mcp } : {}),
    ...(base.observer ? { observer: base.observer } : {}),
    stateDir: base.stateDir,
    usage: {
      record: (call) => base.usage.record(call),
      refusal: createBudgetGate({ ledger: base.usage, budgets: config.budgets, access: config }).refusal,
    },
    chatFiles: createChatFiles({
      workspaceFile: (agentId, written) =>
        workspaceFile({ config, configPath, stateDir: base.stateDir }, agentId, written),
      outboundFor: base.channels.outboundFor,
      logger: logger.child({ component: 'chat-files' }),
    }),
    logger,
  });
  const riskSummaries = createRiskSummaries(registry);
  const now = options.now;
  const identity = buildIdentity({
    config,
    store,
    gateway,
    logger,
    ...(now ? { now: () => now().getTime() } : {}),
  });
  const router = createRouter({
    config,
    configFile: { path: loaded.path, hash: loaded.hash },
    sessions,
    store,
    runner: observeTurns(base, options.createRunner?.({ configPath }) ?? agentRunner),
    logger,
    startedAt: options.startedAt,
    secrets: [...parts.secrets],
    gateway,
    subagents,
    approvals,
    usage: base.usage,
    ...(parts.failover ? { failover: parts.failover } : {}),
    riskSummary: (agentId) => riskSummaries(config.agents[agentId]?.tools ?? NO_TOOLS),
    ...(options.rescue ? { rescue: options.rescue } : {}),
    identity,
    outboundFor: base.channels.outboundFor,
  });
  return { router, subagents, gateway, approvals, riskSummaries, identity };
}

/** Each turn counted by outcome, timed and traced, when the host collects metrics. */
function observeTurns(base: Base, runner: TurnRunner): TurnRunner {
  return base.observer ? base.observer.turns(runner) : runner;
}
