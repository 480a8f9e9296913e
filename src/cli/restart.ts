import { ConfigError } from '../base/errors/index.js';
import { createLogger } from '../base/logging/index.js';
import { cliEnvironment } from './cli-environment.js';
import { printProblem } from './output.js';

export interface RestartCommandOptions {
  config?: string;
  envFile?: string;
  pid?: string;
  note?: string;
  notify?: string;
}

/**
 * `switchboard restart`: SIGUSR1 to the running gateway (its pid from `<stateDir>/gateway.pid`, or
 * `--pid`), with `--notify <route>` and `--note <text>` a note posted to that chat once after the
 * restart (`Gateway restarted (restart): <note>`), recorded in the restart sentinel before the
 * signal. Refused, with nothing sent or recorded, when `commands.restart` is false.
 */
export async function runRestart(options: RestartCommandOptions): Promise<void> {
  const { loadConfig } = await import('../base/config/index.js');
  const host = await import('../host/index.js');
  if (options.note !== undefined && options.notify === undefined)
    return printProblem('--note needs --notify <route>: the note is posted to that chat after the restart');
  const { parseNotifyRoute } = await import('./notify.js');
  const route = options.notify === undefined ? undefined : parseNotifyRoute(options.notify);
  if (route && !route.ok) return printProblem(route.error.replace('nothing was written', 'nothing was sent'));
  const environment = cliEnvironment(options);
  if (!environment) return;
  let config: Awaited<ReturnType<typeof loadConfig>>['config'];
  try {
    config = (await loadConfig({ configPath: options.config, environment })).config;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return printProblem(error.message);
  }
  if (!config.commands.restart)
    return printProblem(
      'the config has commands.restart false: the gateway ignores SIGUSR1; nothing was sent',
    );
  const pid =
    options.pid === undefined
      ? await host.readGatewayPid(config.stateDir)
      : await host.checkGatewayPid(Number(options.pid), '--pid');
  if (!pid.ok) return printProblem(pid.error);
  const logger = createLogger({ level: 'warn', destination: process.stderr }).logger;
  let noteId: string | undefined;
  if (route?.ok) {
    const stats = { mode: 'switchboard restart' };
    const stateDir = config.stateDir;
    const recorded = await host.recordShellNote({
      kind: 'restart',
      stateDir,
      route: route.value,
      message: options.note,
      stats,
      logger,
    });
    if (!recorded.ok) return printProblem(`${recorded.error}; nothing was sent`);
    noteId = recorded.value;
  }
  try {
    process.kill(pid.value, 'SIGUSR1');
  } catch (error) {
    if (noteId !== undefined) await host.withdrawShellNote(config.stateDir, noteId, logger);
    return printProblem(
      `could not signal process ${pid.value}: ${(error as Error).message}; no note is left`,
    );
  }
  const lines = [
    `restart asked of the gateway (pid ${pid.value}); it runs the start check first and keeps serving if the config cannot start`,
    ...(noteId === undefined ? [] : [`${options.notify} gets a note after the restart`]),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
