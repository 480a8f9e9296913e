import type { Config } from '../config/index.js';
import { SwitchboardError } from '../errors/index.js';
import type { Logger } from '../logging/index.js';
import type { AgentMessage, SendOutcome } from '../messages/index.js';
import type { RunStore } from '../sessions/index.js';
import type { Store } from '../store/index.js';
import type { Tool } from '../tools/index.js';
import {
  type ControllerHost,
  type ControllerSignalRequest,
  createControllerHost,
  createOutbox,
  createProjectStore,
  type Outbox,
  outboxFile,
  type ProjectAgent,
  type ProjectMessage,
} from './controller/index.js';
import type { BuiltinToolpackName, LoadToolpacksResult } from './load-toolpacks.js';
import { createToolpackRuntime } from './toolpack-runtime.js';
import type { ToolpackProblem } from './types.js';
import { checkWebuiHandlers, listWebuiEntries } from './webui-check.js';

/** What the toolpacks need of signal delivery (the gateway hands it over; it is built first). */
export interface ToolpackSignals {
  /** A signal a runner, controller or WebUI handler recorded; delivery checks its shape. */
  record(signal: unknown, source: string): Promise<void>;
  /**
   * `store.sendMessage` of a controller. A message to an agent whose id a pending signal already
   * carries is not queued again (an outbox replay).
   */
  send(message: AgentMessage): Promise<SendOutcome>;
  /** The agent roster (`store.listAgents`). */
  agents(): readonly ProjectAgent[];
}

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
  logger: Logger;
}

/** A toolpack's scheduler hook as the scheduler tick runs it. */
export interface ToolpackHook {
  toolpackId: string;
  run(context: Record<string, unknown>): Promise<unknown>;
}

/** What `GET /api/toolpacks` shows, less the scheduler hooks' health (signals keep that). */
export interface ToolpacksReport {
  toolpacks: { id: string; directory: string; tools: string[]; webui: string[] }[];
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
  const { controllers, outboxes } = createControllers(options);
  const runtime = createToolpackRuntime({
    config: options.config,
    configPath: options.configPath,
    stateDir: options.stateDir,
    toolpacks,
    isRunning: async (runId) => (await options.runs.get(runId))?.status === 'running',
    support: (request) => controllerOf(controllers, request.toolpackId).support(request),
    recordSignal: (request) => void options.signals.record(request.signal, `toolpack:${request.toolpackId}`),
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
      toolpacks: toolpacks.map((toolpack) => ({
        id: toolpack.id,
        directory: toolpack.directory,
        tools: toolpack.tools.map((tool) => tool.name),
        webui: toolpack.webui.map((entry) => entry.id),
      })),
      builtins: loaded.builtins,
      problems,
    }),
    /**
     * Delivers what the controllers' outboxes hold open: messages the last process acknowledged
     * and did not see delivered (it was killed). Run once at start, before the scheduler ticks.
     */
    replayOutboxes: () => replayOutboxes(outboxes, options.signals, logger),
    /** Stops every runner process. */
    stop: () => runtime.stop(),
  };
}

export type Toolpacks = Awaited<ReturnType<typeof createToolpacks>>;

function createControllers(options: ToolpacksOptions) {
  const { config, signals, logger } = options;
  const recordSignal = (request: ControllerSignalRequest) =>
    void signals.record(request.signal, `toolpack:${request.toolpackId}`);
  const controllers = new Map<string, ControllerHost>();
  const outboxes = new Map<string, Outbox>();
  for (const toolpack of options.loaded.toolpacks) {
    const outbox = createOutbox({
      file: outboxFile(options.stateDir, toolpack.id),
      logger: logger.child({ toolpack: toolpack.id }),
    });
    outboxes.set(toolpack.id, outbox);
    const store = createProjectStore({
      toolpackId: toolpack.id,
      stateDir: options.stateDir,
      routeNames: Object.keys(config.routes),
      coordinatorAgent: config.communication.coordinatorAgent ?? config.defaultAgent,
      listAgents: () =>
        signals.agents().map(({ id, displayName, role, status }) => ({ id, displayName, role, status })),
      projectStats: () => ({
        agents: Object.keys(config.agents).length,
        toolpacks: options.loaded.toolpacks.length,
      }),
      deliver: (message) => deliverMessage(signals, message),
      outbox,
      store: options.store,
      logger: logger.child({ toolpack: toolpack.id }),
    });
    const controller = createControllerHost({
      toolpack,
      store,
      logger: logger.child({ controller: toolpack.id }),
      recordSignal,
    });
    controllers.set(toolpack.id, controller);
  }
  return { controllers, outboxes };
}

async function deliverMessage(signals: ToolpackSignals, message: ProjectMessage): Promise<void> {
  const sent = await signals.send(message);
  if (!sent.ok) throw new SwitchboardError('TOOLPACK_REFUSED', sent.reason);
}

/** Each open message delivered again (one at a time, oldest first) and settled, whatever the outcome. */
async function replayOutboxes(
  outboxes: ReadonlyMap<string, Outbox>,
  signals: ToolpackSignals,
  logger: Logger,
): Promise<void> {
  for (const [toolpackId, outbox] of outboxes) {
    const open = outbox.open();
    if (open.length === 0) continue;
    logger.info(
      { toolpack: toolpackId, messages: open.length },
      'toolpack messages replayed from the outbox',
    );
    for (const message of open) {
      await deliverMessage(signals, message).catch((error: unknown) =>
        logger.error(
          { err: error, toolpack: toolpackId, messageId: message.id },
          'toolpack message not delivered',
        ),
      );
      outbox.settle(message.id);
    }
  }
}

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
