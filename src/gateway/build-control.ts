import path from 'node:path';
import { absentConfigFile, createConfigEditor, DEFAULT_CONFIG_PATH } from '../config/index.js';
import { ok } from '../errors/index.js';
import type { DeliveryRoute } from '../messages/index.js';
import type { ToolpackProblem } from '../toolpacks/index.js';
import type { UpdatePort } from '../tools/index.js';
import { createUpdateService } from '../update/index.js';
import { checkStartable } from './check-startable.js';
import { createGatewayControl } from './gateway-control.js';
import type { Base } from './gateway-types.js';
import { recordDueNote } from './restart-promises.js';

/**
 * The `gateway` tool's side of this gateway: config edits (checked by the start check against
 * this gateway: its toolpack problems are known, its channels connected) and restarts.
 */
export function buildGatewayControl(
  base: Pick<Base, 'options' | 'stateDir' | 'sessions' | 'logger' | 'running' | 'config'>,
  parts: { toolpackProblems: readonly ToolpackProblem[]; scrub(text: string): string },
) {
  const { loaded, environment, scheduleRestart } = base.options;
  const { logger } = base;
  const { config } = loaded;
  const editor = createConfigEditor({
    path: path.resolve(loaded.path ?? DEFAULT_CONFIG_PATH),
    stateDir: base.stateDir,
    environment,
    dryRun: async (next, file, { via }) =>
      (
        await checkStartable(next, file, {
          running: { config, toolpackProblems: parts.toolpackProblems },
          via,
          logger: logger.child({ component: 'start-check' }),
        })
      ).issues,
    ...(loaded.path === undefined ? { absentFile: absentConfigFile(path.resolve(DEFAULT_CONFIG_PATH)) } : {}),
    scrub: parts.scrub,
  });
  const control = createGatewayControl({
    config,
    editor,
    sessions: base.sessions,
    scheduleRestart,
    logger: logger.child({ component: 'gateway-control' }),
  });
  return { ...control, update: buildUpdates(base, loaded.path) };
}

/**
 * update.check / update.run / update.status over this gateway's config and state dir: outcome
 * notes go through the restart-note path and wake this gateway's delivery. At each start a run
 * whose updater was killed is ended with its note, and old runs' directories are pruned.
 */
function buildUpdates(
  base: Pick<Base, 'options' | 'stateDir' | 'logger' | 'running' | 'config'>,
  configPath: string | undefined,
): UpdatePort {
  const { config, stateDir } = base;
  const logger = base.logger.child({ component: 'update' });
  const wake = () => base.running.restartNotes?.wake();
  const service = createUpdateService({
    configFile: path.resolve(configPath ?? DEFAULT_CONFIG_PATH),
    stateDir,
    settings: config.update,
    drainTimeoutMs: config.gateway.drainTimeoutMs,
    gatewayPid: async () => ok(process.pid),
    recordNote: (run, text) =>
      recordDueNote({
        stateDir,
        id: `update-${run.id}`,
        route: run.route as DeliveryRoute,
        sessionKey: run.sessionKey,
        actor: run.by,
        text,
        logger,
      }),
    wake,
  });
  void service
    .recover()
    .then((ended) => ended && wake())
    .then(() => service.prune())
    .then(() => service.follow())
    .catch((error: unknown) => logger.warn({ err: error }, 'the update ledger could not be read'));
  return service;
}
