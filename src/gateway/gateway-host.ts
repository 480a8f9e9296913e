import PQueue from 'p-queue';
import { type LoadConfigOptions, type LoadedConfig, loadConfig } from '../config/index.js';
import type { LoggerHandle } from '../logging/index.js';
import { createGateway, type Gateway, type GatewayExtensions } from './create-gateway.js';

export interface GatewayHostOptions {
  log: LoggerHandle;
  configOptions?: LoadConfigOptions;
  extensions?: GatewayExtensions;
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
  // Start, restarts and stop run one at a time, in the order they were asked for.
  const lifecycle = new PQueue({ concurrency: 1 });
  const serialize = (task: () => Promise<void>) => lifecycle.add(task);
  let stopped = false;

  async function boot(loaded: LoadedConfig): Promise<void> {
    logger.level = loaded.config.log.level;
    if (!loaded.path)
      logger.info('no config file found; running on built-in defaults (see config/gateway.example.jsonc)');
    const gateway = createGateway({
      loaded,
      log: options.log,
      startedAt,
      ...options.extensions,
    });
    const info = await gateway.start();
    current = { gateway, loaded };
    const message = info.webchatUrl
      ? `Switchboard ready; web chat: ${info.webchatUrl}`
      : `Switchboard ready at ${info.url}`;
    logger.info({ url: info.url, restarts }, message);
    options.onReady?.({ ...info, restarts });
  }

  /** A restart asked for and not started yet: later requests join it. */
  let waitingRestart: { promise?: Promise<void> } | undefined;

  return {
    /** Loads the config and starts; throws ConfigError for an invalid config. */
    start(): Promise<void> {
      return serialize(async () => boot(await loadConfig(options.configOptions)));
    },
    /** Restarts in-process; requests made while one waits to run join it. */
    restart(reason = 'restart requested'): Promise<void> {
      if (waitingRestart?.promise) return waitingRestart.promise;
      // The queue may start the task at once, inside add(): the entry exists before it does.
      const entry: { promise?: Promise<void> } = {};
      waitingRestart = entry;
      entry.promise = serialize(async () => {
        if (waitingRestart === entry) waitingRestart = undefined;
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
      return entry.promise;
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
