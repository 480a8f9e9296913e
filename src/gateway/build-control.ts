import path from 'node:path';
import {
  absentConfigFile,
  createConfigEditor,
  DEFAULT_CONFIG_PATH,
  type LoadedConfig,
} from '../config/index.js';
import type { Logger } from '../logging/index.js';
import type { SessionStore } from '../sessions/index.js';
import type { ToolpackProblem } from '../toolpacks/index.js';
import { checkStartable } from './check-startable.js';
import { createGatewayControl } from './gateway-control.js';
import type { RestartRequest, ScheduledRestart } from './restart-schedule.js';

/**
 * The `gateway` tool's side of this gateway: config edits (checked by the start check against
 * this gateway: its toolpack problems are known, its channels connected) and restarts.
 */
export function buildGatewayControl(options: {
  loaded: LoadedConfig;
  stateDir: string;
  environment: NodeJS.ProcessEnv;
  toolpackProblems: readonly ToolpackProblem[];
  scrub(text: string): string;
  sessions: SessionStore;
  scheduleRestart(request: RestartRequest): Promise<ScheduledRestart>;
  logger: Logger;
}) {
  const { loaded, logger } = options;
  const { config } = loaded;
  const editor = createConfigEditor({
    path: path.resolve(loaded.path ?? DEFAULT_CONFIG_PATH),
    stateDir: options.stateDir,
    environment: options.environment,
    dryRun: async (next, file, { via }) =>
      (
        await checkStartable(next, file, {
          running: { config, toolpackProblems: options.toolpackProblems },
          via,
          logger: logger.child({ component: 'start-check' }),
        })
      ).issues,
    ...(loaded.path === undefined ? { absentFile: absentConfigFile(path.resolve(DEFAULT_CONFIG_PATH)) } : {}),
    scrub: options.scrub,
  });
  return createGatewayControl({
    config,
    editor,
    sessions: options.sessions,
    scheduleRestart: options.scheduleRestart,
    logger: logger.child({ component: 'gateway-control' }),
  });
}
