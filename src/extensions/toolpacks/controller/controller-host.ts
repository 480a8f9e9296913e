import { pathToFileURL } from 'node:url';
import { errorText, SwitchboardError } from '../../../base/errors/index.js';
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
  ControllerHost,
  ControllerHostOptions,
  ControllerSupportRequest,
  SchedulerHook,
} from './controller-types.js';
import type { ProjectAgent } from './project-store.js';

export type {
  ControllerAgent,
  ControllerHost,
  ControllerHostOptions,
  ControllerSignalRequest,
  ControllerSupportRequest,
  SchedulerHook,
  SchedulerHookContext,
} from './controller-types.js';

/**
 * Runs one toolpack's controller module in the gateway process (toolpacks are trusted code).
 *
 * - The module is imported once, on first use; if that fails, every call rejects with an error naming
 *   the file (logged once, with its stack).
 * - Factories run per call, as in Suzumio: `createControllerToolpack` gets a fresh context
 *   `{ store, agent, activationId, toolpackId, recordSignal }` on each support call and
 *   `createWebuiToolpack` a fresh `{ store, project, toolpackId, recordSignal }` on each WebUI call, so an
 *   instance never outlives its call; durable state belongs in `store.kv` or under `store.paths.root`.
 * - One at a time against the scheduler tick: a toolpack's handlers read and write the same state (the
 *   plan toolpack rewrites its state file in the tick and in `plan.close`), so a support or WebUI call
 *   waits for a tick in flight, and a tick that comes while a call runs is skipped (it returns no
 *   signals; the next tick looks again). Calls never wait on calls, and a tick never waits on a call,
 *   so a slow handler cannot stall the scheduler and no wait can go in a circle.
 * - A handler's (or factory's) error is logged with its stack and rethrown as
 *   `<tool> failed in the <id> controller: <message>`, with the original as `cause`. A scheduler
 *   hook's error is rethrown the same way but not logged here: the scheduler logs it once per
 *   distinct error and backs the hook off.
 */
export function createControllerHost(options: ControllerHostOptions): ControllerHost {
  return new ToolpackControllerHost(options);
}

/** One toolpack's controller: its options and the module, imported once on first use. */
class ToolpackControllerHost implements ControllerHost {
  readonly #options: ControllerHostOptions;
  /** `project` in WebUI and scheduler contexts. */
  readonly #project: string;
  #loading: Promise<ModuleExports> | undefined;
  /** Support and WebUI calls running now. */
  #calls = 0;
  /** The scheduler tick running now. */
  #tick: Promise<unknown> | undefined;

  constructor(options: ControllerHostOptions) {
    this.#options = options;
    this.#project = options.project ?? 'default';
  }

  async hasWebuiHandler(entryId: string): Promise<boolean> {
    if (!this.#options.toolpack.webui.some((entry) => entry.id === entryId)) return false;
    return (await this.#findWebuiHandler(entryId)) !== undefined;
  }

  #loadModule(): Promise<ModuleExports> {
    const { toolpack, logger } = this.#options;
    const { id, controllerModule: file } = toolpack;
    this.#loading ??= import(pathToFileURL(file).href).then(
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
    return this.#loading;
  }

  /** Runs a support or WebUI call once no tick is in flight, counted so a tick meanwhile is skipped. */
  async #call<T>(task: () => Promise<T>): Promise<T> {
    while (this.#tick !== undefined) await this.#tick.catch(() => undefined);
    this.#calls += 1;
    try {
      return await task();
    } finally {
      this.#calls -= 1;
    }
  }

  /** Runs a tick unless a call is running (then no signals this tick). */
  #runTick(task: () => Promise<unknown>): Promise<unknown> {
    if (this.#calls > 0) return Promise.resolve([]);
    const running = task().finally(() => {
      if (this.#tick === running) this.#tick = undefined;
    });
    this.#tick = running;
    return running;
  }

  /** `log: false` when the caller logs the failure itself (the scheduler, once per distinct error). */
  async #guarded<T>(label: string, task: () => Promise<T>, log = true): Promise<T> {
    const { toolpack, logger } = this.#options;
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

  async support(request: ControllerSupportRequest): Promise<ToolOutput> {
    const { tool, input, agent, activationId, chargedTo } = request;
    const { toolpack, store } = this.#options;
    const { id, controllerModule: file } = toolpack;
    if (!toolpack.tools.some((declared) => declared.name === tool)) {
      throw new SwitchboardError('TOOLPACK_UNDECLARED', `the ${id} toolpack declares no tool ${tool}`);
    }
    const factory = controllerFactory(await this.#loadModule());
    if (factory === undefined) {
      throw new SwitchboardError(
        'TOOLPACK_NO_HANDLER',
        `the ${id} controller module ${file} exports no createControllerToolpack and no default factory`,
      );
    }
    const recordSignal = (signal: unknown) =>
      this.#options.recordSignal({ toolpackId: id, activationId, signal });
    const context = {
      store,
      agent: agentRecord(store.listAgents(), agent),
      activationId,
      toolpackId: id,
      recordSignal,
      // Switchboard: who the calling turn is charged to (a chat sender id), for what the handler sends later.
      ...(chargedTo === undefined ? {} : { chargedTo }),
    };
    return this.#call(() =>
      this.#guarded(tool, async () => {
        const handler = supportHandler(await factory(context), tool);
        if (handler === undefined) {
          const output = `Tool ${tool} was not handled by the ${id} controller.`;
          return { title: 'toolpack support', output, metadata: { toolpack: id, tool } };
        }
        return toolOutputFromController(await handler(input));
      }),
    );
  }

  async #findWebuiHandler(entryId: string): Promise<BoundHandler | undefined> {
    const { store, toolpack } = this.#options;
    const module = await this.#loadModule();
    const recordSignal = (signal: unknown) => this.#options.recordSignal({ toolpackId: toolpack.id, signal });
    const context = { store, project: this.#project, toolpackId: toolpack.id, recordSignal };
    return this.#guarded(entryId, () => webuiHandler(module, entryId, context));
  }

  async webui(entryId: string, input: unknown): Promise<ToolOutput> {
    const { toolpack, logger } = this.#options;
    const { id } = toolpack;
    if (!toolpack.webui.some((entry) => entry.id === entryId)) {
      throw new SwitchboardError(
        'TOOLPACK_UNDECLARED',
        `the ${id} toolpack declares no WebUI entry ${entryId}`,
      );
    }
    const handler = await this.#findWebuiHandler(entryId);
    if (handler === undefined) {
      throw new SwitchboardError(
        'TOOLPACK_NO_HANDLER',
        `the ${id} controller has no WebUI handler for ${entryId}`,
      );
    }
    // Input the handler refuses (input-error.ts) is the caller's mistake: info, not an error.
    const outcome = await this.#call(() =>
      this.#guarded(entryId, async () => {
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
      }),
    );
    if (outcome instanceof ToolpackInputError) throw outcome;
    return outcome;
  }

  async schedulerHook(): Promise<SchedulerHook | undefined> {
    const hook = schedulerHook(await this.#loadModule());
    if (hook === undefined) return undefined;
    const { store, toolpack } = this.#options;
    const project = this.#project;
    return (context) =>
      this.#runTick(() =>
        this.#guarded(
          'schedulerTick',
          () => hook({ project, ...context, store, toolpackId: toolpack.id }),
          false,
        ),
      );
  }
}

/** The agent as a controller sees it: Suzumio hands controllers the full record; the roster adds role and status where it has them. */
function agentRecord(
  roster: readonly ProjectAgent[],
  agent: ControllerAgent,
): Readonly<ControllerAgent & Partial<ProjectAgent>> {
  const known = roster.find((entry) => entry.id === agent.id);
  return Object.freeze({
    ...known,
    id: agent.id,
    displayName: agent.displayName ?? known?.displayName ?? agent.id,
  });
}
