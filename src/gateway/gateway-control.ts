import { type Config, type ConfigEditor, findToolProtectedPaths } from '../config/index.js';
import { errorText } from '../errors/index.js';
import type { Logger } from '../logging/index.js';
import type { DeliveryRoute } from '../messages/index.js';
import type { SessionStore } from '../sessions/index.js';
import type { GatewayControl, GatewayResult } from '../tools/index.js';
import type { RestartRequest, ScheduledRestart } from './restart-schedule.js';
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
  const { editor, sessions, logger } = options;

  /** The note promised to the asking chat (the session's own route when the caller has none). */
  async function note(
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

  return {
    async configGet() {
      try {
        const snapshot = await editor.snapshot();
        if ('config' in snapshot) return { ok: true, result: snapshot };
        const note = `${snapshot.path} does not load, so no part of it is shown. Fix it with config.apply (the whole config) or config.patch from this hash, or ask an owner to fix the file.`;
        return { ok: true, result: { ...snapshot, note } };
      } catch (error) {
        // An unreadable or broken file is reported, not thrown: owners fix it with apply or by hand.
        return { ok: false, error: errorText(error) };
      }
    },
    schemaLookup: (path) => editor.lookupSchema(path),
    async configEdit(action, request): Promise<GatewayResult> {
      const edit = action === 'config.patch' ? editor.patch : editor.apply;
      const result = await edit({
        raw: request.raw,
        baseHash: request.baseHash,
        actor: request.actor,
        via: request.via,
        ...(request.note === undefined ? {} : { note: request.note }),
        ...(request.replacePaths === undefined ? {} : { replacePaths: request.replacePaths }),
        ...(request.via === 'tool' ? { guard: { protectedPaths: TOOL_PROTECTED_PATHS } } : {}),
      });
      if (!result.ok) return { ok: false, error: result.error };
      if (!result.changed) return { ok: true, result: { changed: false, hash: result.hash } };
      const written = {
        changed: true,
        path: result.path,
        hash: result.hash,
        previousHash: result.previousHash,
        changedPaths: result.changedPaths,
        removedPaths: result.removedPaths,
      };
      logger.info({ action, actor: request.actor, paths: result.changedPaths }, 'config changed');
      if (!options.config.commands.restart) {
        // Written, not applied: the running config forbids restarts, from an edit too.
        return {
          ok: true,
          result: {
            ...written,
            restart: { scheduled: false, reason: RESTART_DISABLED },
            restartNeeded: true,
          },
        };
      }
      const kind = action === 'config.patch' ? 'config-patch' : 'config-apply';
      const restart = await options.scheduleRestart({
        delayMs: request.restartDelayMs,
        reason: `${action} by ${request.actor}`,
        note: await note(kind, request, request.note, {
          mode: action,
          changedPaths: result.changedPaths,
          hash: result.hash,
        }),
      });
      return { ok: true, result: { ...written, restart } };
    },
    async restart(request) {
      if (!options.config.commands.restart) return { ok: false, error: RESTART_DISABLED };
      const reason = request.reason ?? `restart by ${request.actor}`;
      const scheduled = await options.scheduleRestart({
        delayMs: request.delayMs,
        reason,
        note: await note('restart', request, request.note ?? request.reason, {
          mode: 'gateway.restart',
          reason,
        }),
      });
      return { ok: true, result: scheduled };
    },
  };
}
