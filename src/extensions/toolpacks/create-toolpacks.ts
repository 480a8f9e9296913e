import type { Config } from '../../base/config/index.js';
import { SwitchboardError } from '../../base/errors/index.js';
import type { Logger } from '../../base/logging/index.js';
import type { Tool } from '../../engine/tools/index.js';
import type { RunStore } from '../../records/sessions/index.js';
import type { Store } from '../../records/store/index.js';
import type { ControllerHost, DeliveryRetry } from './controller/index.js';
import { createControllers, replayOutboxes, type ToolpackSignals } from './create-controllers.js';
import type { BuiltinToolpackName, LoadToolpacksResult } from './load-toolpacks.js';
import { createToolpackRuntime } from './toolpack-runtime.js';
import type { ToolpackProblem } from './types.js';
import { checkWebuiHandlers, listWebuiEntries } from './webui-check.js';

export interface ToolpacksOptions {
  config: Config;
  configPath: string;
  /** Absolute. */
  stateDir: string;
  /** What `loadToolpacks` found: the local toolpacks run here, the built-ins register elsewhere. */
  loaded: LoadToolpacksResult;
  store: Store;
  runs: Pick<RunStore, 'get'>;
  signals: ToolpackSignals;
  /** How a refused toolpack message is retried (tests shorten it); default 3 attempts, 1 s then 2 s apart. */
  messageRetry?: DeliveryRetry | undefined;
  logger: Logger;
}

/** A toolpack's scheduler hook as the scheduler tick runs it. */
export interface ToolpackHook {
  toolpackId: string;
  run(context: Record<string, unknown>): Promise<unknown>;
}

/** What `GET /api/toolpacks` shows, less the scheduler hooks' health (signals keep that). */
export interface ToolpacksReport {
  toolpacks: {
    id: string;
    directory: string;
    tools: string[];
    webui: string[];
    /** Suzumio-internal APIs its controller read that Switchboard does not provide (`store.db`); only when any. */
    notProvided?: string[];
  }[];
  builtins: string[];
  problems: ToolpackProblem[];
}

export function describeProblem(problem: ToolpackProblem): string {
  return `${problem.file}${problem.pointer ? ` ${problem.pointer}` : ''}: ${problem.message} [${problem.rule}]`;
}

/**
 * The local toolpacks of a running gateway: a controller host per toolpack (in this process, with
 * its project store), the runtime whose tools run in per-agent runner processes, and the link
 * between them (a runner's checked `callSupport` runs its toolpack's controller; what either
 * records goes to signal delivery). A WebUI entry declared without a handler is a problem like any
 * other: reported (logged and in `problems`) and left out.
 */
export async function createToolpacks(options: ToolpacksOptions) {
  const { loaded, logger } = options;
  const toolpacks = loaded.toolpacks;
  logProblems(logger, loaded.problems, 'toolpack skipped');
  const parts = createControllers(options);
  const { controllers } = parts;
  const runtime = createToolpackRuntime({
    config: options.config,
    configPath: options.configPath,
    stateDir: options.stateDir,
    toolpacks,
    isRunning: async (runId) => (await options.runs.get(runId))?.status === 'running',
    support: (request) => controllerOf(controllers, request.toolpackId).support(request),
    recordSignal: (request) =>
      void options.signals.record(request.signal, `toolpack:${request.toolpackId}`, request.agentId),
    logger,
  });
  const webuiProblems = await checkWebuiHandlers(toolpacks, controllers);
  logProblems(logger, webuiProblems, 'toolpack entry skipped');
  const problems = [...loaded.problems, ...webuiProblems];
  const webuiEntries = listWebuiEntries(toolpacks, webuiProblems);
  return {
    /** The runtime's tools, by the toolpack declaring them. */
    tools: toolpacks.map((toolpack) => ({
      toolpackId: toolpack.id,
      tools: runtime.tools.filter((tool) => toolpack.tools.some((declared) => declared.name === tool.name)),
    })) satisfies readonly { toolpackId: string; tools: readonly Tool[] }[],
    /** The built-in toolpacks `tools.toolpacks` names (their tools register with the agent side). */
    builtins: loaded.builtins as readonly BuiltinToolpackName[],
    controllers: controllers as ReadonlyMap<string, ControllerHost>,
    /** Each controller's scheduler hook (one that exports none returns nothing). */
    hooks: [...controllers].map(
      ([toolpackId, controller]): ToolpackHook => ({
        toolpackId,
        async run(context) {
          const hook = await controller.schedulerHook();
          return hook ? hook(context) : undefined;
        },
      }),
    ),
    /** Every toolpack problem: skipped at load, and WebUI entries without a handler. */
    problems: problems as readonly ToolpackProblem[],
    /** The WebUI entries that can run. */
    webuiEntries: () => webuiEntries,
    runWebui: (toolpackId: string, entryId: string, input: unknown) =>
      controllerOf(controllers, toolpackId).webui(entryId, input),
    report: (): ToolpacksReport => ({
      toolpacks: toolpacks.map((toolpack) => {
        const notProvided = [...(parts.notProvided.get(toolpack.id) ?? [])];
        return {
          id: toolpack.id,
          directory: toolpack.directory,
          tools: toolpack.tools.map((tool) => tool.name),
          webui: toolpack.webui.map((entry) => entry.id),
          ...(notProvided.length > 0 ? { notProvided } : {}),
        };
      }),
      builtins: loaded.builtins,
      problems,
    }),
    /**
     * Delivers what the controllers' outboxes hold open: messages the last process acknowledged
     * and did not see delivered (it was killed). Run once at start, before the scheduler ticks.
     */
    replayOutboxes: () => replayOutboxes(parts, options.signals, logger),
    /** Stops every runner process and the message retries (a message being retried is replayed at the next start). */
    stop: () => {
      parts.stop();
      return runtime.stop();
    },
  };
}

export type Toolpacks = Awaited<ReturnType<typeof createToolpacks>>;

function controllerOf(controllers: ReadonlyMap<string, ControllerHost>, toolpackId: string): ControllerHost {
  const controller = controllers.get(toolpackId);
  if (!controller) throw new SwitchboardError('TOOLPACK_UNKNOWN', `no controller for toolpack ${toolpackId}`);
  return controller;
}

function logProblems(logger: Logger, problems: readonly ToolpackProblem[], what: string): void {
  for (const problem of problems) {
    logger.warn({ file: problem.file, rule: problem.rule }, `${what}: ${describeProblem(problem)}`);
  }
}
