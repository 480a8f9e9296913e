import { readEnvironment } from '../base/config/index.js';
import { ConfigError, errorText } from '../base/errors/index.js';
import { createLogger } from '../base/logging/index.js';
import {
  createGatewayHost,
  installSignalHandlers,
  PRIVATE_UMASK,
  removePidFileSync,
  writePidFile,
} from '../host/index.js';
import { failedStartPause, pauseText, waitOut } from './failed-start-pause.js';
import { releaseYoungGeneration } from './young-generation.js';

/** `switchboard start`: run the gateway until SIGTERM/SIGINT; SIGUSR1 restarts it in-process. */
export async function runStart(options: { config?: string; envFile?: string }): Promise<void> {
  // Before anything is created: state, store and logs are this user's only, however we were started.
  process.umask(PRIVATE_UMASK);
  const log = createLogger();
  let pidFile: string | undefined;
  const host = createGatewayHost({
    log,
    configOptions: { configPath: options.config },
    // Read again at each restart: an edited env file needs `switchboard restart`, not a new process.
    environment: () => readEnvironment({ envFile: options.envFile }),
    // A new token's link goes to a terminal only; under pm2 or systemd stdout is a log file.
    extensions: { showTokenLink: process.stdout.isTTY === true },
    onReady() {
      // Started: from here on the young generation grows with the load again (young-generation.ts).
      releaseYoungGeneration();
      // pm2 waits for this with wait_ready; it is sent after every restart too, which pm2 ignores.
      process.send?.('ready');
      // `switchboard restart` finds this process by it (the state dir may change with a restart).
      const stateDir = host.loaded?.config.stateDir;
      if (stateDir !== undefined) {
        writePidFile(stateDir).then(
          (file) => {
            if (pidFile !== undefined && pidFile !== file) removePidFileSync(pidFile);
            pidFile = file;
          },
          (error: unknown) => log.logger.warn({ err: error }, 'could not write the pid file'),
        );
      }
    },
    onDown() {
      // A restart left nothing serving (the new config and the last one that started both failed):
      // a non-zero exit, so that systemd or pm2 read it as a failure rather than a clean stop.
      process.exit(1);
    },
  });
  process.on('exit', () => {
    if (pidFile !== undefined) removePidFileSync(pidFile);
  });
  installSignalHandlers(host, log.logger, () => host.loaded?.config.gateway.drainTimeoutMs ?? 10_000);
  // A promise nobody awaited is a bug to fix, not a reason to drop every session: log it loudly.
  process.on('unhandledRejection', (reason) =>
    log.logger.error({ err: reason }, 'unhandled promise rejection'),
  );
  try {
    await host.start();
  } catch (error) {
    if (error instanceof ConfigError) {
      // Names the file and each JSON path; "not starting" like any other start failure (pm2 logs).
      process.stderr.write(`switchboard: not starting: ${error.message}\n`);
      log.logger.fatal(
        { file: error.file, issues: error.issues },
        error.code === 'CONFIG_UNSTARTABLE'
          ? 'the config cannot start; not starting'
          : 'invalid config; not starting',
      );
    } else {
      // The reason on stderr too, in one line: pm2 keeps it in the error log (`pm2 logs`).
      process.stderr.write(`switchboard: start failed, not starting: ${errorText(error)}\n`);
      log.logger.fatal({ err: error }, 'start failed');
    }
    // Under pm2 (no backoff in the ecosystem file) a failed start waits before it exits.
    const pause = failedStartPause(process.env, process.uptime() * 1000);
    if (pause && pause.milliseconds > 0) {
      process.stderr.write(`${pauseText(pause)}\n`);
      await waitOut(pause.milliseconds);
    }
    process.exit(1);
  }
}
