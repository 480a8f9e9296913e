import { pathToFileURL } from 'node:url';
import { errorText, SwitchboardError } from '../../errors/index.js';
import { inputRefusal, ToolpackInputError } from '../input-error.js';
import type { ToolOutput } from '../runner/types.js';
import {
  type BoundHandler,
  controllerFactory,
  type ModuleExports,
  schedulerHook,
  supportHandler,
  toolOutputFromController,
  webuiHandler,
} from './controller-exports.js';
import type {
  ControllerAgent,
  ControllerHostOptions,
  ControllerSupportRequest,
  SchedulerHook,
} from './controller-types.js';
import type { ProjectAgent } from './project-store.js';

/** One controller host: its options and the module, imported once on first use. */
export interface ControllerState {
  readonly options: ControllerHostOptions;
  /** `project` in WebUI and scheduler contexts. */
  readonly project: string;
  loading: Promise<ModuleExports> | undefined;
}

function loadModule(state: ControllerState): Promise<ModuleExports> {
  const { toolpack, logger } = state.options;
  const { id, controllerModule: file } = toolpack;
  state.loading ??= import(pathToFileURL(file).href).then(
    (module: ModuleExports) => module,
    (error: unknown) => {
      logger.error({ err: error, toolpack: id, file }, 'toolpack controller module failed to load');
      throw new SwitchboardError(
        'TOOLPACK_CONTROLLER_LOAD',
        `cannot load the ${id} controller module ${file}: ${errorText(error)}`,
        { cause: error },
      );
    },
  );
  return state.loading;
}

/** `log: false` when the caller logs the failure itself (the scheduler, once per distinct error). */
async function guarded<T>(
  state: ControllerState,
  label: string,
  task: () => Promise<T>,
  log = true,
): Promise<T> {
  const { toolpack, logger } = state.options;
  try {
    return await task();
  } catch (error) {
    if (log)
      logger.error(
        { err: error, toolpack: toolpack.id, handler: label },
        'toolpack controller handler failed',
      );
    throw new SwitchboardError(
      'TOOLPACK_HANDLER_FAILED',
      `${label} failed in the ${toolpack.id} controller: ${errorText(error)}`,
      { cause: error },
    );
  }
}

function agentRecord(
  state: ControllerState,
  agent: ControllerAgent,
): Readonly<ControllerAgent & Partial<ProjectAgent>> {
  // Suzumio hands controllers the full agent record; the roster adds role and status where it has them.
  const known = state.options.store.listAgents().find((entry) => entry.id === agent.id);
  return Object.freeze({
    ...known,
    id: agent.id,
    displayName: agent.displayName ?? known?.displayName ?? agent.id,
  });
}

export async function runSupport(
  state: ControllerState,
  request: ControllerSupportRequest,
): Promise<ToolOutput> {
  const { tool, input, agent, activationId, chargedTo } = request;
  const { toolpack, store } = state.options;
  const { id, controllerModule: file } = toolpack;
  if (!toolpack.tools.some((declared) => declared.name === tool)) {
    throw new SwitchboardError('TOOLPACK_UNDECLARED', `the ${id} toolpack declares no tool ${tool}`);
  }
  const factory = controllerFactory(await loadModule(state));
  if (factory === undefined) {
    throw new SwitchboardError(
      'TOOLPACK_NO_HANDLER',
      `the ${id} controller module ${file} exports no createControllerToolpack and no default factory`,
    );
  }
  const recordSignal = (signal: unknown) =>
    state.options.recordSignal({ toolpackId: id, activationId, signal });
  const context = {
    store,
    agent: agentRecord(state, agent),
    activationId,
    toolpackId: id,
    recordSignal,
    // Switchboard: who the calling turn is charged to (a chat sender id), for what the handler sends later.
    ...(chargedTo === undefined ? {} : { chargedTo }),
  };
  return guarded(state, tool, async () => {
    const handler = supportHandler(await factory(context), tool);
    if (handler === undefined) {
      const output = `Tool ${tool} was not handled by the ${id} controller.`;
      return { title: 'toolpack support', output, metadata: { toolpack: id, tool } };
    }
    return toolOutputFromController(await handler(input));
  });
}

export async function findWebuiHandler(
  state: ControllerState,
  entryId: string,
): Promise<BoundHandler | undefined> {
  const { store, toolpack } = state.options;
  const module = await loadModule(state);
  const recordSignal = (signal: unknown) => state.options.recordSignal({ toolpackId: toolpack.id, signal });
  const context = { store, project: state.project, toolpackId: toolpack.id, recordSignal };
  return guarded(state, entryId, () => webuiHandler(module, entryId, context));
}

export async function runWebui(state: ControllerState, entryId: string, input: unknown): Promise<ToolOutput> {
  const { toolpack, logger } = state.options;
  const { id } = toolpack;
  if (!toolpack.webui.some((entry) => entry.id === entryId)) {
    throw new SwitchboardError(
      'TOOLPACK_UNDECLARED',
      `the ${id} toolpack declares no WebUI entry ${entryId}`,
    );
  }
  const handler = await findWebuiHandler(state, entryId);
  if (handler === undefined) {
    throw new SwitchboardError(
      'TOOLPACK_NO_HANDLER',
      `the ${id} controller has no WebUI handler for ${entryId}`,
    );
  }
  // Input the handler refuses (input-error.ts) is the caller's mistake: info, not an error.
  const outcome = await guarded(state, entryId, async () => {
    try {
      return toolOutputFromController(await handler(input));
    } catch (error) {
      const refused = inputRefusal(error, entryId);
      if (refused === undefined) throw error;
      logger.info(
        { toolpack: id, entry: entryId, reason: refused.message },
        'toolpack WebUI entry refused the input',
      );
      return refused;
    }
  });
  if (outcome instanceof ToolpackInputError) throw outcome;
  return outcome;
}

export async function hostedSchedulerHook(state: ControllerState): Promise<SchedulerHook | undefined> {
  const hook = schedulerHook(await loadModule(state));
  if (hook === undefined) return undefined;
  const { store, toolpack } = state.options;
  const { project } = state;
  return (context) =>
    guarded(
      state,
      'schedulerTick',
      () => hook({ project, ...context, store, toolpackId: toolpack.id }),
      false,
    );
}
