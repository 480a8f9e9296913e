import { ConfigError } from '../errors/index.js';
import { createGatewayHost, installSignalHandlers } from '../gateway/index.js';
import { createLogger } from '../logging/index.js';

/** `switchboard start`: run the gateway until SIGTERM/SIGINT; SIGUSR1 restarts it in-process. */
export async function runStart(options: { config?: string }): Promise<void> {
  const log = createLogger();
  const host = createGatewayHost({
    log,
    configOptions: { configPath: options.config },
    onReady({ webchatUrl, url, restarts }) {
      const message = webchatUrl
        ? `Switchboard ready; web chat: ${webchatUrl}`
        : `Switchboard ready at ${url}`;
      log.logger.info({ url, restarts }, message);
      // pm2 waits for this with wait_ready; it is sent after every restart too, which pm2 ignores.
      process.send?.('ready');
    },
  });
  installSignalHandlers(host, log.logger, () => host.loaded?.config.lifecycle.stopTimeoutMs ?? 10_000);
  try {
    await host.start();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      log.logger.fatal({ file: error.file, issues: error.issues }, 'invalid config; not starting');
    } else {
      log.logger.fatal({ err: error }, 'start failed');
    }
    process.exit(1);
  }
}
