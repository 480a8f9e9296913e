import path from 'node:path';
import { absentConfigFile, createConfigEditor, DEFAULT_CONFIG_PATH } from '../base/config/index.js';
import type { ToolpackProblem } from '../extensions/toolpacks/index.js';
import { createGatewayControl } from './gateway-control.js';
import type { Base } from './gateway-types.js';

/**
 * The `gateway` tool's side of this gateway: config edits (checked by the start check against
 * this gateway: its toolpack problems are known, its channels connected) and restarts.
 */
export function buildGatewayControl(
  base: Pick<Base, 'options' | 'stateDir' | 'sessions' | 'logger'>,
  parts: { toolpackProblems: readonly ToolpackProblem[]; scrub(text: string): string },
) {
  const { loaded, environment, nextEnvironment, scheduleRestart, startCheck } = base.options;
  const { logger } = base;
  const { config } = loaded;
  const editor = createConfigEditor({
    path: path.resolve(loaded.path ?? DEFAULT_CONFIG_PATH),
    stateDir: base.stateDir,
    // An edit is checked against what the restart it schedules will read (an env file edited since).
    environment: nextEnvironment ?? environment,
    dryRun: (next, file, { via }) =>
      startCheck(next, file, {
        running: { config, toolpackProblems: parts.toolpackProblems },
        via,
        logger: logger.child({ component: 'start-check' }),
      }),
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
  // update.check / update.run / update.status: the host's (src/update through src/host).
  return base.options.update ? { ...control, update: base.options.update } : control;
}
