import { readAgentInstructions } from '../agents/index.js';
import { checkChannelCredentials } from '../channels/index.js';
import type { Config } from '../config/index.js';
import { DEFAULT_CONFIG_PATH, loadConfig } from '../config/index.js';
import { ConfigError } from '../errors/index.js';
import { describeProblem, loadConfiguredToolpacks } from '../gateway/index.js';
import { describeRunnerSandbox } from '../toolpacks/index.js';

/** `switchboard doctor`: the start-up validation, without starting anything. Exit 1 when something is wrong. */
export async function runDoctor(options: { config?: string }): Promise<void> {
  try {
    const loaded = await loadConfig({ configPath: options.config });
    const { config } = loaded;
    const configPath = loaded.path ?? DEFAULT_CONFIG_PATH;
    // The prompt files are read at start too: a missing one would stop the gateway there.
    await readAgentInstructions(config, configPath);
    const toolpacks = await loadConfiguredToolpacks(config, loaded.path);
    const registered = [
      ...toolpacks.builtins,
      ...toolpacks.toolpacks.map((toolpack) => `${toolpack.id} (${toolpack.tools.length} tools)`),
    ];
    const models = Object.entries(config.models).map(
      ([name, model]) =>
        `${name} (${model.provider} ${model.model}${model.baseUrl ? ` at ${model.baseUrl}` : ''})`,
    );
    const lines = [
      `config: ${loaded.path ?? 'none found; built-in defaults'} (hash ${loaded.hash.slice(0, 12)})`,
      `state dir: ${config.stateDir}`,
      `http: ${config.http.host}:${config.http.port}, token ${config.http.token ? 'from config' : 'from <stateDir>/http-token'}`,
      `store: ${config.store.url ?? `sqlite (default, in ${config.stateDir})`}`,
      `agents: ${Object.entries(config.agents)
        .map(([id, agent]) => `${id}${agent.model ? ` → ${agent.model}` : ' (no model)'}`)
        .join(', ')} (default ${config.defaultAgent})`,
      `models: ${models.join(', ') || 'none'}`,
      `toolpacks: ${registered.join(', ') || 'none'}`,
      `owners: ${config.owners.join(', ') || 'none'}`,
      `channels: ${enabledChannels(config).join(', ') || 'none'}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    // After the summary, so that it shows while the platforms answer (each check gives up after 10 s).
    const channelsOk = await checkChannels(config);
    const sandbox = await describeRunnerSandbox(config.tools.runnerSandbox);
    if (sandbox.ok && !sandbox.warning) process.stdout.write(`${sandbox.text}\n`);
    else process.stderr.write(`${sandbox.ok ? 'warning: ' : ''}${sandbox.text}\n`);
    if (toolpacks.problems.length > 0) {
      // The gateway starts without them, but something the operator asked for is not there.
      const problems = toolpacks.problems.map((problem) => `  ${describeProblem(problem)}`);
      process.stderr.write(`toolpacks skipped (the gateway starts without them):\n${problems.join('\n')}\n`);
      process.exitCode = 1;
      return;
    }
    if (!channelsOk || !sandbox.ok) {
      process.exitCode = 1;
      return;
    }
    process.stdout.write('OK\n');
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 1;
  }
}

function enabledChannels(config: Config): string[] {
  const { webchat, slack, discord } = config.channels;
  return [
    ...(webchat.enabled ? ['webchat'] : []),
    ...(slack ? [`slack (${slack.mode})`] : []),
    ...(discord ? ['discord'] : []),
  ];
}

/**
 * Asks Slack and Discord (the configured ones, in parallel) whether they accept the tokens, and
 * prints one line each: `slack: ok — …` on stdout or `slack: <reason>` on stderr. The gateway
 * would start without a refused channel, so a refusal is a problem: false when any failed.
 */
async function checkChannels(config: Config): Promise<boolean> {
  const checks = await checkChannelCredentials(config.channels);
  for (const { channel, result } of checks) {
    if (result.ok) process.stdout.write(`${channel}: ok — ${result.detail}\n`);
    else process.stderr.write(`${channel}: ${result.reason}\n`);
  }
  return checks.every(({ result }) => result.ok);
}
