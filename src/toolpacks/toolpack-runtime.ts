import path from 'node:path';
import type { TSchema } from '@sinclair/typebox';
import type { Config } from '../config/index.js';
import type { Logger } from '../logging/index.js';
import { createAllowlist, type Tool } from '../tools/index.js';
import { createActivationRegistry } from './activations.js';
import { workspaceFor } from './builtin/index.js';
import { createRunnerHost, createRunnerSandbox, type RunnerHost, type ToolOutput } from './runner/index.js';
import type { LoadedToolpack } from './types.js';

export interface SupportRequest {
  toolpackId: string;
  tool: string;
  input: unknown;
  agent: { id: string; displayName?: string };
  activationId: string;
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
  /** A signal a runner or controller recorded, with the activation it came from. */
  recordSignal(request: { toolpackId: string; agentId: string; activationId: string; signal: unknown }): void;
  logger: Logger;
}

/**
 * Local toolpacks at run time: each declared tool becomes a registry tool that runs its handler in
 * the calling agent's runner process (one per agent, started on first use with only the toolpacks
 * that agent may use). `callSupport` from a runner is checked (see activations.ts) before the
 * controller runs.
 */
export function createToolpackRuntime(options: ToolpackRuntimeOptions) {
  const { config, logger } = options;
  const owners = new Map<string, string>();
  for (const toolpack of options.toolpacks)
    for (const tool of toolpack.tools) owners.set(tool.name, toolpack.id);
  const allowlists = new Map<string, (tool: string) => boolean>();
  const allows = (agentId: string, tool: string) => {
    let allowlist = allowlists.get(agentId);
    if (!allowlist) {
      allowlist = createAllowlist(config.agents[agentId]?.tools ?? []);
      allowlists.set(agentId, allowlist);
    }
    return allowlist(tool);
  };
  const activations = createActivationRegistry({
    isRunning: options.isRunning,
    toolpackOf: (tool) => owners.get(tool),
    allows,
  });
  const hosts = new Map<string, RunnerHost>();
  // One probe of the machine for all of this gateway's runners.
  const sandbox = createRunnerSandbox({ setting: config.tools.runnerSandbox, logger });

  function hostFor(agentId: string): RunnerHost {
    const existing = hosts.get(agentId);
    if (existing) return existing;
    // Only toolpacks with at least one tool this agent may use reach its runner.
    const toolpacks = options.toolpacks.filter((toolpack) =>
      toolpack.tools.some((tool) => allows(agentId, tool.name)),
    );
    const host = createRunnerHost({
      agentId,
      project: 'default',
      toolpacks,
      workspace: workspaceFor(config, options.configPath, options.stateDir, agentId),
      artifactsDir: path.join(options.stateDir, 'artifacts', agentId),
      timeoutMs: config.tools.runnerTimeoutMs,
      sandbox,
      logger: logger.child({ runner: agentId }),
      async callSupport(request) {
        const checked = await activations.check({ ...request, agentId });
        if (!checked.ok) throw new Error(checked.reason);
        const agent = config.agents[agentId];
        return options.support({
          toolpackId: request.toolpackId,
          tool: request.tool,
          input: request.input,
          agent: { id: agentId, ...(agent?.displayName ? { displayName: agent.displayName } : {}) },
          activationId: checked.activation.activationId,
        });
      },
      async recordSignal(request) {
        // A signal is not tied to a tool: the activation checks are the ones that apply.
        const checked = await activations.checkActivation(request.activation, agentId);
        if (!checked.ok) throw new Error(checked.reason.replace('callSupport', 'recordSignal'));
        options.recordSignal({
          toolpackId: request.toolpackId,
          agentId,
          activationId: checked.activation.activationId,
          signal: request.signal,
        });
      },
    });
    hosts.set(agentId, host);
    return host;
  }

  const tools: Tool[] = options.toolpacks.flatMap((toolpack) =>
    toolpack.tools.map(
      (declared): Tool => ({
        name: declared.name,
        description: declared.description,
        parameters: declared.inputSchema as unknown as TSchema,
        async execute(input, context) {
          const activation = activations.forRun({
            runId: context.runId,
            agentId: context.agentId,
            sessionKey: context.sessionKey,
          });
          const result = await hostFor(context.agentId).call({
            toolpackId: toolpack.id,
            tool: declared.name,
            input,
            activation,
            signal: context.signal,
          });
          // The registry prefixes `Tool <name> failed:`; the runner's own prefix would say it twice.
          if (!result.ok) throw new Error(result.error.replace(`${declared.name} failed: `, ''));
          return result.value;
        },
      }),
    ),
  );

  return {
    /** One registry tool per declared toolpack tool. */
    tools,
    /** The activation registry (callSupport checks), for the controller side and tests. */
    activations,
    /** Stops every runner process. */
    async stop(): Promise<void> {
      await Promise.all([...hosts.values()].map((host) => host.stop()));
      hosts.clear();
    },
  };
}

export type ToolpackRuntime = ReturnType<typeof createToolpackRuntime>;
