import {
  type ControllerState,
  findWebuiHandler,
  hostedSchedulerHook,
  runSupport,
  runWebui,
} from './controller-run.js';
import type { ControllerHost, ControllerHostOptions } from './controller-types.js';

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
 * - A handler's (or factory's) error is logged with its stack and rethrown as
 *   `<tool> failed in the <id> controller: <message>`, with the original as `cause`. A scheduler
 *   hook's error is rethrown the same way but not logged here: the scheduler logs it once per
 *   distinct error and backs the hook off.
 */
export function createControllerHost(options: ControllerHostOptions): ControllerHost {
  const state: ControllerState = { options, project: options.project ?? 'default', loading: undefined };
  return {
    support: (request) => runSupport(state, request),
    webui: (entryId, input) => runWebui(state, entryId, input),
    async hasWebuiHandler(entryId) {
      if (!options.toolpack.webui.some((entry) => entry.id === entryId)) return false;
      return (await findWebuiHandler(state, entryId)) !== undefined;
    },
    schedulerHook: () => hostedSchedulerHook(state),
  };
}
