import { type Config, collectSecretValues, createSecretScrubber } from '../base/config/index.js';
import type { Logger } from '../base/logging/index.js';
import { type AgentMessage, communicationPolicy, type SendOutcome } from '../base/messages/index.js';
import {
  type AgentRunner,
  createAgentRunner,
  createModelProvider,
  type FailoverState,
  type ModelProvider,
  readAgentInstructions,
  type UsageMeter,
} from '../engine/agents/index.js';
import type { Observer } from '../engine/observability/index.js';
import {
  type ApprovalsPort,
  type ChatFilesPort,
  createSkillsLoadTool,
  createToolRegistry,
  GATEWAY_TOOLS,
  type GatewayControl,
  type SubagentsPort,
  type Tool,
  type ToolRegistry,
  unmetRequirement,
  withRiskOverride,
} from '../engine/tools/index.js';
import type { McpServers } from '../extensions/mcp/index.js';
import {
  type BuiltinToolpackName,
  createBuiltinToolpackTools,
  createCompletionRecords,
  createCoreTools,
  type ToolActivity,
} from '../extensions/toolpacks/index.js';
import type { RunStore, SessionStore } from '../records/sessions/index.js';
import type { Store } from '../records/store/index.js';
import { createSessionsService, type ModelHealth } from '../surfaces/control/index.js';
import { type AgentSkills, loadAgentSkills, withSkillCatalogs } from './agent-skills.js';
import type { GatewayExtensions } from './gateway-types.js';
import { reportSuccess, type SucceededCall } from './tool-effects.js';
import type { TurnPort } from './turn-port.js';
import { createWorkspaceFiles } from './workspace-files.js';

export interface AgentRunnerParts {
  config: Config;
  configPath: string;
  extensions: GatewayExtensions;
  sessions: SessionStore;
  runs: RunStore;
  /** Where `completion.submit` keeps its submissions (namespace `completions`). */
  store: Store;
  /** The built-in toolpacks `tools.toolpacks` names; their tools are registered here. */
  builtinToolpacks: readonly BuiltinToolpackName[];
  /** Tools of the local toolpacks, by toolpack id (they run in runner processes). */
  toolpackTools: readonly { toolpackId: string; tools: readonly Tool[] }[];
  /** Wraps each registered tool so its calls are recorded (the Tools page); absent, none are. */
  activity?: ToolActivity;
  /** `messages.send` of the core toolpack. */
  sendMessage(message: AgentMessage): Promise<SendOutcome>;
  /** Told of each tool call that succeeded (signals count the useful effects of wake turns). */
  toolSucceeded?(call: SucceededCall): void;
  /** What `sessions_list` and `session_status` read of the sessions' turns. */
  turns: Pick<TurnPort, 'sessionStatus' | 'sessionDepth'>;
  gateway: GatewayControl;
  subagents: SubagentsPort;
  /** The gate every tool call passes. */
  approvals: ApprovalsPort;
  /** Records each model's last call (the health page); absent, none are. */
  models?: ModelHealth;
  /** The gateway's model cooldowns and last failover; absent, the runner keeps its own. */
  failover?: FailoverState;
  /** The MCP servers: their tools are registered (and replaced on `list_changed`) here. */
  mcp?: McpServers;
  /** Counts and traces each model and tool call (`/metrics`, spans); absent, none are. */
  observer?: Observer;
  stateDir: string;
  /** What `chat.attach` sends files through. */
  chatFiles?: ChatFilesPort;
  /** Each model call's tokens counted, and a turn refused when its budget is spent. */
  usage?: UsageMeter;
  logger: Logger;
}

/**
 * The agent side of the composition root: the tool registry (built-ins, then the extensions'
 * tools; a duplicate name stops the start; config `tools.risk` over each tool's risk classes), one
 * provider per configured model, and the runner. The registry is returned for the risk summaries.
 */
export async function buildAgentRunner(
  options: AgentRunnerParts,
): Promise<{ runner: AgentRunner; registry: ToolRegistry }> {
  const { config, extensions, logger } = options;
  // Rescanned at each start and restart, not watched; a bad SKILL.md is reported and skipped.
  const skills = await loadAgentSkills(config, options.configPath);
  for (const problem of skills.problems) logger.warn({ path: problem.path }, `skills: ${problem.message}`);
  const registry = buildRegistry(options, skills);
  const providers = new Map<string, ModelProvider>();
  const createProvider = extensions.createModelProvider ?? createModelProvider;
  // Each family's SDK is imported by the first of its models (createModelProvider): only those configured.
  for (const [name, model] of Object.entries(config.models)) {
    const provider = await createProvider({ name, config: model, logger: logger.child({ model: name }) });
    const observed = options.observer ? options.observer.model(provider) : provider;
    providers.set(name, options.models ? options.models.watch(observed) : observed);
  }
  const sessions = createSessionsService({
    sessions: options.sessions,
    status: options.turns.sessionStatus,
    depth: options.turns.sessionDepth,
    // The runner reports its own runs: read only while a tool runs, after it exists.
    activity: (key) => runner.activity(key),
    config,
  });
  const runner = createAgentRunner({
    config,
    configPath: options.configPath,
    providers,
    registry,
    sessions: options.sessions,
    runs: options.runs,
    instructions: withSkillCatalogs(config, await readAgentInstructions(config, options.configPath), skills),
    ...(options.failover ? { failover: options.failover } : {}),
    readWorkspaceFile: createWorkspaceFiles({
      config,
      configPath: options.configPath,
      stateDir: options.stateDir,
    }).read,
    ...(options.usage ? { usage: options.usage } : {}),
    services: {
      sessions,
      gateway: options.gateway,
      subagents: options.subagents,
      approvals: options.approvals,
      ...(options.chatFiles ? { chatFiles: options.chatFiles } : {}),
    },
  });
  return { runner, registry };
}

function buildRegistry(options: AgentRunnerParts, skills: AgentSkills) {
  const { config, extensions } = options;
  const registry = createToolRegistry({
    unmet: (tool) => unmetRequirement(tool, config),
    // A crashed tool's message and stack reach the model: never a secret value of the config.
    scrub: createSecretScrubber(collectSecretValues(config)),
  });
  const { activity, toolSucceeded, observer } = options;
  const add = (declared: Tool, source: string) => {
    const tool = withRiskOverride(declared, config.tools.risk);
    const observed = observer ? observer.tool(tool) : tool;
    const reported = toolSucceeded ? reportSuccess(observed, toolSucceeded) : observed;
    registry.register(activity ? activity.watch(reported, source) : reported, source);
  };
  for (const tool of GATEWAY_TOOLS) add(tool, 'builtin');
  // Without any skill there is nothing to load: the tool is not offered.
  if (skills.all.length > 0) {
    add(createSkillsLoadTool({ skillsFor: skills.skillsFor }), 'builtin');
  }
  const toolpackOptions = { config, configPath: options.configPath, stateDir: options.stateDir };
  for (const name of options.builtinToolpacks) {
    if (name === 'core') {
      const core = createCoreTools({
        ...toolpackOptions,
        send: options.sendMessage,
        routes: config.routes,
        policy: communicationPolicy(config),
        completions: createCompletionRecords({ store: options.store }),
      });
      for (const tool of core) add(tool, 'toolpack core');
      continue;
    }
    // `core` carries the file tools (Suzumio): a `file` entry beside it adds nothing.
    if (name === 'file' && options.builtinToolpacks.includes('core')) continue;
    for (const tool of createBuiltinToolpackTools(name, toolpackOptions)) add(tool, `toolpack ${name}`);
  }
  for (const { toolpackId, tools } of options.toolpackTools) {
    for (const tool of tools) add(tool, `toolpack ${toolpackId}`);
  }
  for (const tool of extensions.tools ?? []) add(tool, 'gateway options');
  options.mcp?.attach({ register: add, unregister: (name) => void registry.unregister(name) });
  return registry;
}
