import { pathToFileURL } from 'node:url';
import { errorText } from '../../errors/index.js';
import type { Logger } from '../../logging/index.js';
import { inputRefusal, ToolpackInputError } from '../input-error.js';
import type { ToolOutput } from '../runner/types.js';
import type { LoadedToolpack } from '../types.js';
import {
  type BoundHandler,
  controllerFactory,
  type ModuleExports,
  schedulerHook,
  supportHandler,
  toolOutputFromController,
  webuiHandler,
} from './controller-exports.js';
import type { ProjectAgent, ProjectStore } from './project-store.js';

export interface ControllerAgent {
  id: string;
  displayName?: string;
}

export interface ControllerSignalRequest {
  toolpackId: string;
  /** Absent for signals from WebUI handlers, which run outside any activation. */
  activationId?: string;
  signal: unknown;
}

export interface ControllerSupportRequest {
  tool: string;
  input: unknown;
  agent: ControllerAgent;
  activationId: string;
}

/** What the scheduler passes on each tick (`now`, `agents`, …); the host adds `store` and `toolpackId`. */
export type SchedulerHookContext = Readonly<Record<string, unknown>>;
export type SchedulerHook = (context: SchedulerHookContext) => Promise<unknown>;

export interface ControllerHostOptions {
  toolpack: LoadedToolpack;
  /** This toolpack's store (`createProjectStore`). */
  store: ProjectStore;
  logger: Logger;
  /** `context.recordSignal(signal)` of a controller or WebUI handler lands here; errors reach the handler. */
  recordSignal(request: ControllerSignalRequest): void;
  /** `project` in WebUI and scheduler contexts, as Suzumio passes it; default `default`. */
  project?: string;
}

export interface ControllerHost {
  /** Runs the controller for one callSupport; the caller has checked the activation and the allowlist. */
  support(request: ControllerSupportRequest): Promise<ToolOutput>;
  webui(entryId: string, input: unknown): Promise<ToolOutput>;
  /** Whether `webui(entryId)` finds a handler; rejects when the module cannot load or its factory throws. */
  hasWebuiHandler(entryId: string): Promise<boolean>;
  /** The module's scheduler hook, or undefined when it exports none. */
  schedulerHook(): Promise<SchedulerHook | undefined>;
}

/**
 * Runs one toolpack's controller module in the gateway process (toolpacks are trusted code).
 *
 * - The module is imported once, on first use; if that fails, every call rejects with an error naming
 *   the file (logged once, with its stack).
 * - Factories run per call, as in Suzumio: `createControllerToolpack` gets a fresh context
 *   `{ store, agent, activationId, toolpackId, recordSignal }` on each support call and
 *   `createWebuiToolpack` a fresh `{ store, project, toolpackId, recordSignal }` on each WebUI call, so an
 *   instance never outlives its call; durable state belongs in `store.kv` or under `store.paths.root`.
 * - A handler's (or factory's) error is logged with its stack and rethrown as
 *   `<tool> failed in the <id> controller: <message>`, with the original as `cause`. A scheduler
 *   hook's error is rethrown the same way but not logged here: the scheduler logs it once per
 *   distinct error and backs the hook off.
 */
export function createControllerHost(options: ControllerHostOptions): ControllerHost {
  const { toolpack, store, logger } = options;
  const { id, controllerModule: file } = toolpack;
  const project = options.project ?? 'default';
  let loading: Promise<ModuleExports> | undefined;

  function load(): Promise<ModuleExports> {
    loading ??= import(pathToFileURL(file).href).then(
      (module: ModuleExports) => module,
      (error: unknown) => {
        logger.error({ err: error, toolpack: id, file }, 'toolpack controller module failed to load');
        throw new Error(`cannot load the ${id} controller module ${file}: ${errorText(error)}`, {
          cause: error,
        });
      },
    );
    return loading;
  }

  /** `log: false` when the caller logs the failure itself (the scheduler, once per distinct error). */
  async function guarded<T>(label: string, task: () => Promise<T>, log = true): Promise<T> {
    try {
      return await task();
    } catch (error) {
      if (log)
        logger.error({ err: error, toolpack: id, handler: label }, 'toolpack controller handler failed');
      throw new Error(`${label} failed in the ${id} controller: ${errorText(error)}`, { cause: error });
    }
  }

  function agentRecord(agent: ControllerAgent): Readonly<ControllerAgent & Partial<ProjectAgent>> {
    // Suzumio hands controllers the full agent record; the roster adds role and status where it has them.
    const known = store.listAgents().find((entry) => entry.id === agent.id);
    return Object.freeze({
      ...known,
      id: agent.id,
      displayName: agent.displayName ?? known?.displayName ?? agent.id,
    });
  }

  function webuiContext() {
    const recordSignal = (signal: unknown) => options.recordSignal({ toolpackId: id, signal });
    return { store, project, toolpackId: id, recordSignal };
  }

  async function findWebuiHandler(entryId: string): Promise<BoundHandler | undefined> {
    const module = await load();
    return guarded(entryId, () => webuiHandler(module, entryId, webuiContext()));
  }

  return {
    async support({ tool, input, agent, activationId }) {
      if (!toolpack.tools.some((declared) => declared.name === tool)) {
        throw new Error(`the ${id} toolpack declares no tool ${tool}`);
      }
      const factory = controllerFactory(await load());
      if (factory === undefined) {
        throw new Error(
          `the ${id} controller module ${file} exports no createControllerToolpack and no default factory`,
        );
      }
      const recordSignal = (signal: unknown) =>
        options.recordSignal({ toolpackId: id, activationId, signal });
      const context = { store, agent: agentRecord(agent), activationId, toolpackId: id, recordSignal };
      return guarded(tool, async () => {
        const handler = supportHandler(await factory(context), tool);
        if (handler === undefined) {
          const output = `Tool ${tool} was not handled by the ${id} controller.`;
          return { title: 'toolpack support', output, metadata: { toolpack: id, tool } };
        }
        return toolOutputFromController(await handler(input));
      });
    },

    async webui(entryId, input) {
      if (!toolpack.webui.some((entry) => entry.id === entryId)) {
        throw new Error(`the ${id} toolpack declares no WebUI entry ${entryId}`);
      }
      const handler = await findWebuiHandler(entryId);
      if (handler === undefined) throw new Error(`the ${id} controller has no WebUI handler for ${entryId}`);
      // Input the handler refuses (input-error.ts) is the caller's mistake: info, not an error.
      const outcome = await guarded(entryId, async () => {
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
    },

    async hasWebuiHandler(entryId) {
      if (!toolpack.webui.some((entry) => entry.id === entryId)) return false;
      return (await findWebuiHandler(entryId)) !== undefined;
    },

    async schedulerHook() {
      const hook = schedulerHook(await load());
      if (hook === undefined) return undefined;
      return (context) =>
        guarded('schedulerTick', () => hook({ project, ...context, store, toolpackId: id }), false);
    },
  };
}
