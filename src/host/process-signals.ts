import type { Logger } from '../base/logging/index.js';
import type { GatewayHost } from './gateway-host.js';

/** Extra time past the graceful stop before the process exits anyway. */
const FORCE_EXIT_GRACE_MS = 5000;

/**
 * SIGUSR1 restarts in-process (same pid) and never exits: a config that cannot start is refused
 * (logged as `Restart refused: …; still running the previous config.`) and a start that fails
 * anyway goes back to the last config that started; only a host left with nothing serving ends
 * the process, through its `onDown`. SIGTERM and SIGINT stop gracefully and exit. A second
 * SIGTERM/SIGINT during the stop exits at once. Returns a function that removes the handlers.
 */
export function installSignalHandlers(
  host: GatewayHost,
  logger: Logger,
  drainTimeoutMs: () => number,
): () => void {
  let stopping = false;
  const onRestart = () => {
    if (host.loaded?.config.commands.restart === false) {
      logger.warn('SIGUSR1 received; ignored because commands.restart is false');
      return;
    }
    logger.info('SIGUSR1 received');
    host.restart('SIGUSR1').catch((error: unknown) => {
      logger.error({ err: error }, 'restart failed');
    });
  };
  const onStop = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second stop signal; exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'stopping');
    const force = setTimeout(() => {
      logger.error('graceful stop took too long; exiting');
      process.exit(1);
    }, drainTimeoutMs() + FORCE_EXIT_GRACE_MS);
    force.unref();
    host.stop().then(
      () => {
        logger.info('stopped');
        remove();
        process.exitCode = 0;
      },
      (error: unknown) => {
        logger.fatal({ err: error }, 'stop failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGUSR1', onRestart);
  process.on('SIGTERM', onStop);
  process.on('SIGINT', onStop);
  const remove = () => {
    process.off('SIGUSR1', onRestart);
    process.off('SIGTERM', onStop);
    process.off('SIGINT', onStop);
  };
  return remove;
}
