import path from 'node:path';
import type { TSchema } from '@sinclair/typebox';
import type { Config } from '../../base/config/index.js';
import { SwitchboardError } from '../../base/errors/index.js';
import type { Logger } from '../../base/logging/index.js';
import { causerOf, createAllowlist, type Tool } from '../../engine/tools/index.js';
import { type ActivationRegistry, createActivationRegistry } from './activations.js';
import { uploadsRoot, workspaceFor } from './builtin/index.js';
import type { ControllerSupportRequest } from './controller/index.js';
import {
  createRunnerHost,
  createRunnerSandbox,
  type RunnerHost,
  type RunnerSandbox,
  type ToolOutput,
} from './runner/index.js';
import { toolpackRisk } from './toolpack-risk.js';
import type { LoadedTool, LoadedToolpack } from './types.js';

/** A checked callSupport, for the controller of `toolpackId`. */
export interface SupportRequest extends ControllerSupportRequest {
  toolpackId: string;
}

/** A signal a runner recorded, with the activation it came from (checked). */
export interface RuntimeSignalRequest {
  toolpackId: string;
  agentId: string;
  activationId: string;
  signal: unknown;
}

export interface ToolpackRuntimeOptions {
  config: Config;
  configPath: string;
  stateDir: string;
  toolpacks: readonly LoadedToolpack[];
  /** Whether a run still goes (activations of ended runs are refused). */
  isRunning(runId: string): Promise<boolean>;
  /** Runs the toolpack's controller for a checked callSupport. */
  support(request: SupportRequest): Promise<ToolOutput>;
  /** A signal a runner recorded, with the activation it came from. */
  recordSignal(request: RuntimeSignalRequest): void;
  logger: Logger;
}

interface RuntimeState {
  options: ToolpackRuntimeOptions;
  activations: ActivationRegistry;
  allows(agentId: string, tool: string): boolean;
  /** One runner process per agent, started on first use. */
  hosts: Map<string, RunnerHost>;
  /** One probe of the machine for all of this gateway's runners. */
  sandbox: RunnerSandbox;
}

/**
 * Local toolpacks at run time: each declared tool becomes a registry tool that runs its handler in
 * the calling agent's runner process (one per agent, started on first use with only the toolpacks
 * that agent may use). `callSupport` from a runner is checked (see activations.ts) before the
 * controller runs.
 */
export function createToolpackRuntime(options: ToolpackRuntimeOptions) {
  const { config } = options;
  const owners = new Map<string, string>();
  for (const toolpack of options.toolpacks)
    for (const tool of toolpack.tools) owners.set(tool.name, toolpack.id);
  const allows = agentAllowlists(config);
  const state: RuntimeState = {
    options,
    activations: createActivationRegistry({
      isRunning: options.isRunning,
      toolpackOf: (tool) => owners.get(tool),
      allows,
    }),
    allows,
    hosts: new Map(),
    sandbox: createRunnerSandbox({ setting: config.tools.runnerSandbox, logger: options.logger }),
  };
  return {
    /** One registry tool per declared toolpack tool. */
    tools: options.toolpacks.flatMap((toolpack) => registryTools(state, toolpack)),
    /** The activation registry (callSupport checks), for the controller side and tests. */
    activations: state.activations,
    /** Stops every runner process. */
    async stop(): Promise<void> {
      await Promise.all([...state.hosts.values()].map((host) => host.stop()));
      state.hosts.clear();
    },
  };
}

export type ToolpackRuntime = ReturnType<typeof createToolpackRuntime>;

/** Whether an agent's `tools` allowlist includes a tool; each agent's list is compiled once. */
function agentAllowlists(config: Config): (agentId: string, tool: string) => boolean {
  const allowlists = new Map<string, (tool: string) => boolean>();
  return (agentId, tool) => {
    let allowlist = allowlists.get(agentId);
    if (!allowlist) {
      allowlist = createAllowlist(config.agents[agentId]?.tools ?? []);
      allowlists.set(agentId, allowlist);
    }
    return allowlist(tool);
  };
}

function registryTools(state: RuntimeState, toolpack: LoadedToolpack): Tool[] {
  return toolpack.tools.map((declared) =>
    declaredTool(declared, async (input, context) => {
      const activation = state.activations.forRun({
        runId: context.runId,
        agentId: context.agentId,
        sessionKey: context.sessionKey,
        chargedTo: causerOf(context),
      });
      const result = await hostFor(state, context.agentId).call({
        toolpackId: toolpack.id,
        tool: declared.name,
        input,
        activation,
        signal: context.signal,
      });
      // The registry prefixes `Tool <name> failed:`; the runner's own prefix would say it twice.
      if (!result.ok)
        throw new SwitchboardError(
          'TOOLPACK_TOOL_FAILED',
          result.error.replace(`${declared.name} failed: `, ''),
        );
      return result.value;
    }),
  );
}

/** A manifest's tool as a registry tool (its risk, `risky`, compiled schema), run by `execute`. */
export function declaredTool(declared: LoadedTool, execute: Tool['execute']): Tool {
  return {
    name: declared.name,
    description: declared.description,
    parameters: declared.inputSchema as unknown as TSchema,
    validateParameters: declared.validate,
    ...(declared.risky === true ? { risky: true } : {}),
    // A manifest tool is repeated after a restart only when its manifest says so.
    restartSafe: declared.restartSafe === true,
    risk: toolpackRisk(declared),
    execute,
  };
}

function hostFor(state: RuntimeState, agentId: string): RunnerHost {
  const existing = state.hosts.get(agentId);
  if (existing) return existing;
  const { options, activations } = state;
  const { config } = options;
  const host = createRunnerHost({
    agentId,
    project: 'default',
    // Only toolpacks with at least one tool this agent may use reach its runner.
    toolpacks: options.toolpacks.filter((toolpack) =>
      toolpack.tools.some((tool) => state.allows(agentId, tool.name)),
    ),
    workspace: workspaceFor(config, options.configPath, options.stateDir, agentId),
    artifactsDir: path.join(options.stateDir, 'artifacts', agentId),
    hidden: [uploadsRoot(options.stateDir)],
    timeoutMs: config.tools.runnerTimeoutMs,
    sandbox: state.sandbox,
    logger: options.logger.child({ runner: agentId }),
    async callSupport(request) {
      const checked = await activations.check({ ...request, agentId });
      if (!checked.ok) throw new SwitchboardError('TOOLPACK_REFUSED', checked.error);
      const agent = config.agents[agentId];
      return options.support({
        toolpackId: request.toolpackId,
        tool: request.tool,
        input: request.input,
        agent: { id: agentId, ...(agent?.displayName ? { displayName: agent.displayName } : {}) },
        activationId: checked.value.activationId,
        ...(checked.value.chargedTo === undefined ? {} : { chargedTo: checked.value.chargedTo }),
      });
    },
    async recordSignal(request) {
      // A signal is not tied to a tool: the activation checks are the ones that apply.
      const checked = await activations.checkActivation(request.activation, agentId);
      if (!checked.ok)
        throw new SwitchboardError('TOOLPACK_REFUSED', checked.error.replace('callSupport', 'recordSignal'));
      options.recordSignal({
        toolpackId: request.toolpackId,
        agentId,
        activationId: checked.value.activationId,
        signal: request.signal,
      });
    },
  });
  state.hosts.set(agentId, host);
  return host;
}
