import type { Config } from '../config/index.js';
import type { Logger } from '../logging/index.js';
import type { RunStore } from '../sessions/index.js';
import type { Store } from '../store/index.js';
import {
  type ControllerHost,
  createControllerHost,
  createProjectStore,
  createToolpackRuntime,
  type LoadedToolpack,
  type ToolpackRuntime,
} from '../toolpacks/index.js';

/**
 * Local toolpacks at run time: a controller host per toolpack (in this process, with its project
 * store) and the runtime whose tools run in per-agent runner processes. Signals and messages that
 * toolpacks record are logged: the signal queue that delivers them is a later slice of the
 * toolpacks issue, and the log says so rather than pretending they were delivered.
 */
export function buildToolpackRuntime(options: {
  config: Config;
  configPath: string;
  stateDir: string;
  toolpacks: readonly LoadedToolpack[];
  store: Store;
  runs: RunStore;
  logger: Logger;
}): { runtime: ToolpackRuntime; controllers: ReadonlyMap<string, ControllerHost> } {
  const { config, logger } = options;
  const recordSignal = (request: { toolpackId: string; signal: unknown; activationId?: string }) => {
    logger.warn(
      { toolpack: request.toolpackId, activation: request.activationId, signal: request.signal },
      'signal recorded; signal delivery is not available in this version',
    );
  };
  const controllers = new Map<string, ControllerHost>();
  for (const toolpack of options.toolpacks) {
    const store = createProjectStore({
      toolpackId: toolpack.id,
      stateDir: options.stateDir,
      routeNames: [],
      coordinatorAgent: config.defaultAgent,
      listAgents: () =>
        Object.entries(config.agents).map(([id, agent]) => ({
          id,
          displayName: agent.displayName ?? id,
          role: 'agent',
          status: 'idle',
        })),
      projectStats: () => ({
        agents: Object.keys(config.agents).length,
        toolpacks: options.toolpacks.length,
      }),
      deliver: (message) => {
        logger.warn(
          { toolpack: toolpack.id, message: message.id },
          'toolpack message not delivered: messaging is not available in this version',
        );
      },
      store: options.store,
      logger: logger.child({ toolpack: toolpack.id }),
    });
    controllers.set(
      toolpack.id,
      createControllerHost({
        toolpack,
        store,
        logger: logger.child({ controller: toolpack.id }),
        recordSignal,
      }),
    );
  }
  const runtime = createToolpackRuntime({
    config,
    configPath: options.configPath,
    stateDir: options.stateDir,
    toolpacks: options.toolpacks,
    isRunning: async (runId) => (await options.runs.get(runId))?.status === 'running',
    support: (request) => {
      const controller = controllers.get(request.toolpackId);
      if (!controller) throw new Error(`no controller for toolpack ${request.toolpackId}`);
      return controller.support(request);
    },
    recordSignal,
    logger,
  });
  return { runtime, controllers };
}
