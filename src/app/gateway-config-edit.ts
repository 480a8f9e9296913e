import {
  type Config,
  type ConfigChange,
  type ConfigEditor,
  type ConfigEditRequest,
  type ConfigEditResult,
  findToolProtectedPaths,
} from '../base/config/index.js';
import { errorText, fail, ok, type Result } from '../base/errors/index.js';
import type { Logger } from '../base/logging/index.js';
import type { DeliveryRoute } from '../base/messages/index.js';
import type {
  ConfigEditOutcome,
  ConfigEditPlanView,
  ConfigWritten,
  GatewayEditRequest,
  GatewayUndoRequest,
  ScheduledRestart,
} from '../engine/tools/index.js';
import type { SessionStore } from '../records/sessions/index.js';
import type { RestartKind, RestartNoteRequest, RestartRequest } from './host-ports.js';

/**
 * Through the model-facing tool these stay as they are, found in the schema: what guards the
 * gateway itself (owners, http, commands, channels), every secret, every URL a secret is sent to,
 * and toolpack entries that add code (see src/base/config/tool-guard.ts).
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

type EditAction = 'config.patch' | 'config.apply';
type WriteAction = EditAction | 'config.undo';

const RESTART_KINDS = {
  'config.patch': 'config-patch',
  'config.apply': 'config-apply',
  'config.undo': 'config-undo',
} as const satisfies Record<WriteAction, RestartKind>;

export async function configEdit(
  options: GatewayControlOptions,
  action: EditAction,
  request: GatewayEditRequest,
): Promise<Result<ConfigEditOutcome>> {
  const edit = action === 'config.patch' ? options.editor.patch : options.editor.apply;
  return afterWrite(options, action, request, await edit(editorRequest(options, request)));
}

/** What configEdit would write, checked the same way (the tool's guard included); nothing is written. */
export async function configPreview(
  options: GatewayControlOptions,
  action: EditAction,
  request: GatewayEditRequest,
): Promise<Result<ConfigEditPlanView>> {
  const { ok: succeeded, ...view } = await options.editor.preview(action, editorRequest(options, request));
  return succeeded ? ok(view as ConfigEditPlanView) : fail((view as { error: string }).error);
}

/** Change `number` restored (the file before it written back), then applied as an edit is. */
export async function configUndo(
  options: GatewayControlOptions,
  number: number,
  request: GatewayUndoRequest,
): Promise<Result<ConfigEditOutcome>> {
  const result = await options.editor.undo(number, {
    baseHash: request.baseHash,
    actor: request.actor,
    via: 'command',
    ...(request.note === undefined ? {} : { note: request.note }),
  });
  return afterWrite(options, 'config.undo', request, result);
}

/** The audit log's changes; an unreadable log is an error result. */
export async function configHistory(options: GatewayControlOptions): Promise<Result<ConfigChange[]>> {
  try {
    return ok(await options.editor.history());
  } catch (error) {
    return fail(errorText(error));
  }
}

export async function configChange(
  options: GatewayControlOptions,
  number: number,
): Promise<Result<{ change: ConfigChange; diff: string }>> {
  const view = await options.editor.change(number);
  return view.ok ? ok({ change: view.change, diff: view.diff }) : fail(view.error);
}

/**
 * The editor's request; only an edit through the model's tool is guarded: kept off protected
 * paths, and to what the schema marks editable plus the running config's `agentEditable`.
 */
function editorRequest(options: GatewayControlOptions, request: GatewayEditRequest): ConfigEditRequest {
  return {
    raw: request.raw,
    baseHash: request.baseHash,
    actor: request.actor,
    via: request.via,
    ...(request.note === undefined ? {} : { note: request.note }),
    ...(request.replacePaths === undefined ? {} : { replacePaths: request.replacePaths }),
    ...(request.allowOperatorLockout ? { allowOperatorLockout: true } : {}),
    ...(request.via === 'tool' ? { guard: toolGuard(options.config) } : {}),
    ...(request.always ? { approverPatch: alwaysPatch(request.always.agentId, request.always.tool) } : {}),
  };
}

/** The model's tool's limits under the running config (an owner's `agentEditable` is read from it, not from the edit). */
function toolGuard(config: Config): NonNullable<ConfigEditRequest['guard']> {
  return { protectedPaths: TOOL_PROTECTED_PATHS, agentEditable: config.agentEditable };
}

/** "Always for this tool in this agent" as a config merge patch: `agents.<id>.approvals.tools.<tool> = "auto"`. */
export function alwaysPatch(agentId: string, tool: string): Record<string, unknown> {
  return { agents: { [agentId]: { approvals: { tools: { [tool]: 'auto' } } } } };
}

/** A write's result as the caller sees it: written and a restart scheduled (or not allowed), or why not. */
async function afterWrite(
  options: GatewayControlOptions,
  action: WriteAction,
  request: GatewayUndoRequest,
  result: ConfigEditResult,
): Promise<Result<ConfigEditOutcome>> {
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
  const stats = { mode: action, changedPaths: result.changedPaths, hash: result.hash };
  const restart = await options.scheduleRestart({
    delayMs: request.restartDelayMs,
    reason: `${action} by ${request.actor}`,
    note: await noteFor(options.sessions, RESTART_KINDS[action], request, request.note, stats),
  });
  return ok({ ...written, restart });
}

/** The note promised to the asking chat (the session's own route when the caller has none). */
export async function noteFor(
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
