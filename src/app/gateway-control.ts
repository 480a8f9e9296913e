import type { ConfigEditor } from '../base/config/index.js';
import { errorText, fail, ok, type Result } from '../base/errors/index.js';
import type {
  ConfigView,
  GatewayControl,
  GatewayRestartRequest,
  ScheduledRestart,
} from '../engine/tools/index.js';
import {
  configChange,
  configEdit,
  configHistory,
  configPreview,
  configUndo,
  type GatewayControlOptions,
  noteFor,
  RESTART_DISABLED,
} from './gateway-config-edit.js';

export {
  alwaysPatch,
  type GatewayControlOptions,
  RESTART_DISABLED,
  TOOL_PROTECTED_PATHS,
} from './gateway-config-edit.js';

/**
 * The `gateway` tool's and the owner commands' view of the gateway: config edits go through
 * the config editor (hash check, validation, atomic write, audit) and end in a scheduled
 * restart whose sentinel brings the note back to the asking session's chat; the owner's safety
 * net (preview with its diff, history, undo) goes through the same editor.
 */
export function createGatewayControl(options: GatewayControlOptions): GatewayControl {
  return {
    configGet: () => configGet(options.editor),
    schemaLookup(path) {
      const lookup = options.editor.lookupSchema(path);
      return lookup.ok ? ok(lookup.result) : lookup;
    },
    configEdit: (action, request) => configEdit(options, action, request),
    configPreview: (action, request) => configPreview(options, action, request),
    configHistory: () => configHistory(options),
    configChange: (number) => configChange(options, number),
    configUndo: (number, request) => configUndo(options, number, request),
    restart: (request) => restart(options, request),
    restartAllowed: () => (options.config.commands.restart ? ok(undefined) : fail(RESTART_DISABLED)),
  };
}

async function configGet(editor: ConfigEditor): Promise<Result<ConfigView>> {
  try {
    const snapshot = await editor.snapshot();
    if ('config' in snapshot) return ok(snapshot);
    const note = `${snapshot.path} does not load, so no part of it is shown. Fix it with config.apply (the whole config) or config.patch from this hash, or ask an owner to fix the file.`;
    return ok({ ...snapshot, note });
  } catch (error) {
    // An unreadable or broken file is reported, not thrown: owners fix it with apply or by hand.
    return fail(errorText(error));
  }
}

async function restart(
  options: GatewayControlOptions,
  request: GatewayRestartRequest,
): Promise<Result<ScheduledRestart>> {
  if (!options.config.commands.restart) return fail(RESTART_DISABLED);
  const reason = request.reason ?? `restart by ${request.actor}`;
  const stats = { mode: 'gateway.restart', reason };
  const scheduled = await options.scheduleRestart({
    delayMs: request.delayMs,
    reason,
    note: await noteFor(options.sessions, 'restart', request, request.note ?? request.reason, stats),
  });
  return ok(scheduled);
}
