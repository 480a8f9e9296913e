import type { Config } from '../config/index.js';
import type { Logger } from '../logging/index.js';
import type { RunStore } from '../sessions/index.js';
import type { SignalInput } from '../signals/index.js';
import type { Store } from '../store/index.js';
import {
  type ControllerHost,
  createControllerHost,
  createProjectStore,
  createToolpackRuntime,
  type LoadedToolpack,
  type ToolpackRuntime,
} from '../toolpacks/index.js';
import type { Signals } from './build-signals.js';

/**
 * Local toolpacks at run time: a controller host per toolpack (in this process, with its project
 * store) and the runtime whose tools run in per-agent runner processes. Signals and messages they
 * record go to the signal service, reached late (it needs the controllers for its hooks).
 */
export function buildToolpackRuntime(options: {
  config: Config;
  configPath: string;
  stateDir: string;
  toolpacks: readonly LoadedToolpack[];
  store: Store;
  runs: RunStore;
  signals: () => Pick<Signals, 'record' | 'send' | 'agents'>;
  logger: Logger;
}): { runtime: ToolpackRuntime; controllers: ReadonlyMap<string, ControllerHost> } {
  const { config, logger } = options;
  const recordSignal = (request: { toolpackId: string; signal: unknown }) => {
    void options.signals().record(request.signal as SignalInput, `toolpack:${request.toolpackId}`);
  };
  const controllers = new Map<string, ControllerHost>();
  for (const toolpack of options.toolpacks) {
    const store = createProjectStore({
      toolpackId: toolpack.id,
      stateDir: options.stateDir,
      routeNames: Object.keys(config.routes),
      coordinatorAgent: config.communication.coordinatorAgent ?? config.defaultAgent,
      listAgents: () =>
        options
          .signals()
          .agents()
          .map(({ id, displayName, role, status }) => ({ id, displayName, role, status })),
      projectStats: () => ({
        agents: Object.keys(config.agents).length,
        toolpacks: options.toolpacks.length,
      }),
      deliver: async (message) => {
        const sent = await options.signals().send(message);
        if (!sent.ok) throw new Error(sent.reason);
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
