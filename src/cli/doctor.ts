import { loadConfig } from '../config/index.js';
import { ConfigError } from '../errors/index.js';

/** `switchboard doctor`: the start-up validation, without starting anything. Exit 1 when something is wrong. */
export async function runDoctor(options: { config?: string }): Promise<void> {
  try {
    const loaded = await loadConfig({ configPath: options.config });
    const { config } = loaded;
    const lines = [
      `config: ${loaded.path ?? 'none found; built-in defaults'} (hash ${loaded.hash.slice(0, 12)})`,
      `state dir: ${config.stateDir}`,
      `http: ${config.http.host}:${config.http.port}, token ${config.http.token ? 'from config' : 'from <stateDir>/http-token'}`,
      `store: ${config.store.url ?? `sqlite (default, in ${config.stateDir})`}`,
      `agents: ${Object.keys(config.agents).join(', ')} (default ${config.defaultAgent})`,
      `owners: ${config.owners.join(', ') || 'none'}`,
      `channels: ${config.channels.webchat.enabled ? 'webchat' : 'none'}`,
      'OK',
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 1;
  }
}
