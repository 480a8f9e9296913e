import type { TurnRunner } from '../agents/index.js';
import { type LoadConfigOptions, type LoadedConfig, loadConfig } from '../config/index.js';
import type { LoggerHandle } from '../logging/index.js';
import { createGateway, type Gateway } from './create-gateway.js';

export interface GatewayHostOptions {
  log: LoggerHandle;
  configOptions?: LoadConfigOptions;
  createRunner?: (context: { configPath: string }) => TurnRunner;
  /** Called once the gateway serves (first start and every restart). */
  onReady?: (info: { url: string; webchatUrl: string | undefined; restarts: number }) => void;
}

/**
 * Owns the running gateway for the life of the process: start, in-process restart (re-read
 * the config, stop everything, build it again) and stop. Restart requests that arrive while
 * one is under way join it. A restart whose config is invalid keeps the running gateway.
 */
export function createGatewayHost(options: GatewayHostOptions) {
  const logger = options.log.logger;
  const startedAt = Date.now();
  let current: { gateway: Gateway; loaded: LoadedConfig } | undefined;
  let restarts = 0;
  let pending: Promise<void> | undefined;
  let stopped = false;

  async function boot(loaded: LoadedConfig): Promise<void> {
    logger.level = loaded.config.log.level;
    if (!loaded.path)
      logger.info('no config file found; running on built-in defaults (see config/gateway.example.jsonc)');
    const gateway = createGateway({
      loaded,
      log: options.log,
      startedAt,
      ...(options.createRunner ? { createRunner: options.createRunner } : {}),
    });
    const info = await gateway.start();
    current = { gateway, loaded };
    const message = info.webchatUrl
      ? `Switchboard ready; web chat: ${info.webchatUrl}`
      : `Switchboard ready at ${info.url}`;
    logger.info({ url: info.url, restarts }, message);
    options.onReady?.({ ...info, restarts });
  }

  function serialize(task: () => Promise<void>): Promise<void> {
    const run = (pending ?? Promise.resolve()).then(task);
    const tail = run.catch(() => {});
    pending = tail;
    void tail.then(() => {
      if (pending === tail) pending = undefined;
    });
    return run;
  }

  let restartQueued: Promise<void> | undefined;

  return {
    /** Loads the config and starts; throws ConfigError for an invalid config. */
    start(): Promise<void> {
      return serialize(async () => boot(await loadConfig(options.configOptions)));
    },
    /** Restarts in-process; requests made while one waits to run join it. */
    restart(reason = 'restart requested'): Promise<void> {
      if (restartQueued) return restartQueued;
      const queued = serialize(async () => {
        restartQueued = undefined;
        if (stopped) return;
        let loaded: LoadedConfig;
        try {
          loaded = await loadConfig(options.configOptions);
        } catch (error) {
          logger.error(
            { err: error },
            `restart refused (${reason}): the config is invalid; the running gateway stays up`,
          );
          return;
        }
        logger.info({ reason }, 'restarting');
        await current?.gateway.stop();
        current = undefined;
        restarts += 1;
        await boot(loaded);
      });
      restartQueued = queued;
      return queued;
    },
    /** Stops gracefully; later restarts are ignored. */
    stop(): Promise<void> {
      return serialize(async () => {
        stopped = true;
        await current?.gateway.stop();
        current = undefined;
      });
    },
    get restarts() {
      return restarts;
    },
    get loaded(): LoadedConfig | undefined {
      return current?.loaded;
    },
  };
}

export type GatewayHost = ReturnType<typeof createGatewayHost>;
