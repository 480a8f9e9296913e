import path from 'node:path';
import { DEFAULT_CONFIG_PATH, type LoadedConfig } from '../base/config/index.js';
import { ok } from '../base/errors/index.js';
import type { Logger } from '../base/logging/index.js';
import type { DeliveryRoute } from '../base/messages/index.js';
import {
  createUpdateService,
  noteId,
  type UpdateService,
  type UpdateServiceOptions,
} from '../update/index.js';
import { recordDueNote } from './restart-promises.js';

/**
 * The updater of one config (issue 31, src/update): outcome notes go through the restart sentinel
 * of the config's state dir. In the gateway this process is the one it restarts and `wake` has it
 * post the notes now; the CLI names the running gateway's pid instead and has no `wake`.
 */
export function createHostUpdates(options: {
  loaded: LoadedConfig;
  logger: Logger;
  wake?: () => void;
  gatewayPid?: UpdateServiceOptions['gatewayPid'];
}): UpdateService {
  const { config } = options.loaded;
  const stateDir = path.resolve(config.stateDir);
  const logger = options.logger.child({ component: 'update' });
  return createUpdateService({
    configFile: path.resolve(options.loaded.path ?? DEFAULT_CONFIG_PATH),
    stateDir,
    settings: config.update,
    drainTimeoutMs: config.gateway.drainTimeoutMs,
    gatewayPid: options.gatewayPid ?? (async () => ok(process.pid)),
    recordNote: recordUpdateNote(stateDir, logger),
    wake: options.wake,
  });
}

/**
 * How an update's notes are recorded (the gateway's service and the updater process alike): due
 * in the restart sentinel of `stateDir`, to the run's chat, in the name of who asked.
 */
export function recordUpdateNote(stateDir: string, logger: Logger): UpdateServiceOptions['recordNote'] {
  return (run, text, kind) =>
    recordDueNote({
      stateDir,
      id: noteId(run.id, kind),
      route: run.route as DeliveryRoute,
      sessionKey: run.sessionKey,
      actor: run.by,
      text,
      logger,
    });
}

/**
 * After a boot reached ready: a run whose updater was killed is ended (its note says which
 * version runs), old runs' kept builds and checkpoints are pruned, a run still going is followed
 * so that its note is posted when it ends. In the background; failures are logged.
 */
export function afterReady(updates: UpdateService, wake: () => void, logger: Logger): void {
  void updates
    .recover()
    .then((ended) => ended && wake())
    .then(() => updates.prune())
    .then(() => updates.follow())
    .catch((error: unknown) => logger.warn({ err: error }, 'the update ledger could not be read'));
}
