import {
  type Config,
  type ConfigEditor,
  type ConfigEditResult,
  findToolProtectedPaths,
} from '../config/index.js';
import { errorText, fail, ok, type Result } from '../errors/index.js';
import type { Logger } from '../logging/index.js';
import type { DeliveryRoute } from '../messages/index.js';
import type { SessionStore } from '../sessions/index.js';
import type {
  ConfigEditOutcome,
  ConfigView,
  ConfigWritten,
  GatewayControl,
  GatewayEditRequest,
  GatewayRestartRequest,
  ScheduledRestart,
} from '../tools/index.js';
import type { RestartRequest } from './restart-schedule.js';
import type { RestartKind, RestartNoteRequest } from './restart-sentinel.js';

/**
 * Through the model-facing tool these stay as they are, found in the schema: what guards the
 * gateway itself (owners, http, commands, channels), every secret, every URL a secret is sent to,
 * and toolpack entries that add code (see src/config/tool-guard.ts).
 */
export const TOOL_PROTECTED_PATHS = findToolProtectedPaths();
export const RESTART_DISABLED = 'Gateway restart is disabled (commands.restart=false).';

export interface GatewayControlOptions {
  /** The running config (`commands.restart`). */
  config: Config;
  editor: ConfigEditor;
  sessions: SessionStore;
  scheduleRestart(request: RestartRequest): Promise<ScheduledRestart>;
  logger: Logger;
}

/**
 * The `gateway` tool's and the owner commands' view of the gateway: config edits go through
 * the config editor (hash check, validation, atomic write, audit) and end in a scheduled
 * restart whose sentinel brings the note back to the asking session's chat.
 */
export function createGatewayControl(options: GatewayControlOptions): GatewayControl {
  return {
    configGet: () => configGet(options.editor),
    schemaLookup(path) {
      const lookup = options.editor.lookupSchema(path);
      return lookup.ok ? ok(lookup.result) : lookup;
    },
    configEdit: (action, request) => configEdit(options, action, request),
    restart: (request) => restart(options, request),
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

type EditAction = 'config.patch' | 'config.apply';

async function configEdit(
  options: GatewayControlOptions,
  action: EditAction,
  request: GatewayEditRequest,
): Promise<Result<ConfigEditOutcome>> {
  const result = await editConfig(options.editor, action, request);
  if (!result.ok) return fail(result.error);
  if (!result.changed) return ok({ changed: false, hash: result.hash });
  const written: ConfigWritten = {
    changed: true,
    path: result.path,
    hash: result.hash,
    previousHash: result.previousHash,
    changedPaths: result.changedPaths,
    removedPaths: result.removedPaths,
  };
  options.logger.info({ action, actor: request.actor, paths: result.changedPaths }, 'config changed');
  if (!options.config.commands.restart) {
    // Written, not applied: the running config forbids restarts, from an edit too.
    return ok({ ...written, restart: { scheduled: false, reason: RESTART_DISABLED }, restartNeeded: true });
  }
  const kind = action === 'config.patch' ? 'config-patch' : 'config-apply';
  const stats = { mode: action, changedPaths: result.changedPaths, hash: result.hash };
  const restart = await options.scheduleRestart({
    delayMs: request.restartDelayMs,
    reason: `${action} by ${request.actor}`,
    note: await noteFor(options.sessions, kind, request, request.note, stats),
  });
  return ok({ ...written, restart });
}

/** The editor's patch or apply; only an edit through the model's tool is kept off protected paths. */
function editConfig(
  editor: ConfigEditor,
  action: EditAction,
  request: GatewayEditRequest,
): Promise<ConfigEditResult> {
  const edit = action === 'config.patch' ? editor.patch : editor.apply;
  return edit({
    raw: request.raw,
    baseHash: request.baseHash,
    actor: request.actor,
    via: request.via,
    ...(request.note === undefined ? {} : { note: request.note }),
    ...(request.replacePaths === undefined ? {} : { replacePaths: request.replacePaths }),
    ...(request.via === 'tool' ? { guard: { protectedPaths: TOOL_PROTECTED_PATHS } } : {}),
  });
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

/** The note promised to the asking chat (the session's own route when the caller has none). */
async function noteFor(
  sessions: SessionStore,
  kind: RestartKind,
  request: { sessionKey: string; route?: DeliveryRoute | undefined; actor: string },
  message: string | undefined,
  stats: object,
): Promise<RestartNoteRequest> {
  const { sessionKey } = request;
  const route = request.route ?? (await sessions.get(sessionKey))?.route;
  return {
    kind,
    sessionKey,
    actor: request.actor,
    ...(route ? { route } : {}),
    ...(message === undefined ? {} : { message }),
    stats: { ...stats },
  };
}
