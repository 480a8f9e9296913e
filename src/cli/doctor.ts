import path from 'node:path';
import {
  type Config,
  collectSecretValues,
  createSecretScrubber,
  DEFAULT_CONFIG_PATH,
  type LoadedConfig,
  modelChainText,
} from '../base/config/index.js';
import type { ConfigError } from '../base/errors/index.js';
import { createLogger } from '../base/logging/index.js';
import { type McpServerStatus, probeMcpServers } from '../extensions/mcp/index.js';
import { describeProblem, describeRunnerSandbox } from '../extensions/toolpacks/index.js';
import { loadStartable, type StartCheckReport } from '../host/index.js';
import { describeStoreUrl } from '../records/store/index.js';
import type { ChannelCredentialCheck } from '../surfaces/channels/index.js';
import { describeAgents, describeRegistry } from '../surfaces/control/index.js';
import { agentLines } from './agents.js';
import { cliEnvironment } from './cli-environment.js';
import {
  checkConfigFileMode,
  checkDeployment,
  checkOperatorOwner,
  printDoctorLines,
} from './doctor-deployment.js';
import { printProblem } from './output.js';

/**
 * `switchboard doctor`: the gateway's start check (the one the config editor and restarts use)
 * plus every configured platform's credentials, without starting anything. Exit 1 when something
 * is wrong, including toolpacks a start would skip.
 */
export async function runDoctor(options: { config?: string; envFile?: string }): Promise<void> {
  const environment = cliEnvironment(options);
  if (!environment) return;
  // The check opens the store; its warnings (none expected) stay off the terminal.
  const { logger } = createLogger({ level: 'silent' });
  const checked = await loadStartable(
    { configPath: options.config, environment },
    { via: 'doctor', channels: 'all', logger },
  );
  const found = checked.ok ? checked.value : checked.error;
  if (found.loaded === undefined) {
    // The file does not load (parse, schema, env): nothing else can be checked.
    printProblem(found.cause.message);
    return;
  }
  const { loaded, report } = found;
  process.stdout.write(`${summary(loaded, report).join('\n')}\n`);
  printDoctorLines(await checkConfigFileMode(loaded));
  printDoctorLines(checkOperatorOwner(loaded.config));
  // Each agent's risk summary, from the registry a start would build.
  const registry = await describeRegistry({
    config: loaded.config,
    configPath: loaded.path,
    toolpacks: report.toolpacks,
    logger,
  });
  process.stdout.write(`${describeAgents(loaded.config, registry).flatMap(agentLines).join('\n')}\n`);
  printChannels(report.channels);
  // Warnings only: a Redis store without a password, a running gateway's failing scheduler hooks.
  printDoctorLines(await checkDeployment(loaded.config));
  let healthy = true;
  // Toolpack runners: no network and no signals to the gateway, where the machine allows it.
  const sandbox = await describeRunnerSandbox(loaded.config.tools.runnerSandbox);
  if (sandbox.ok) printDoctorLines([sandbox]);
  else {
    process.stderr.write(`${sandbox.text}\n`);
    healthy = false;
  }
  if (!checked.ok) {
    printUnstartable(loaded, report, checked.error.cause);
    healthy = false;
  }
  if (report.toolpacks.problems.length > 0) {
    // The gateway starts without them, but something the operator asked for is not there.
    const problems = report.toolpacks.problems.map((problem) => `  ${describeProblem(problem)}`);
    process.stderr.write(`toolpacks skipped (the gateway starts without them):\n${problems.join('\n')}\n`);
    healthy = false;
  }
  if (!printSkillProblems(report)) healthy = false;
  if (!(await checkMcpServers(loaded, logger))) healthy = false;
  if (healthy) process.stdout.write('OK\n');
  else process.exitCode = 1;
}

/** Refused SKILL.md files and unknown skill names: the gateway starts without them. False when any. */
function printSkillProblems(report: StartCheckReport): boolean {
  const problems = report.warnings.filter(
    (issue) => issue.path === '/skills/dirs' || /^\/agents\/[^/]+\/skills\//.test(issue.path),
  );
  if (problems.length === 0) return true;
  const lines = problems.map((issue) => `  ${issue.path}: ${issue.message}`);
  process.stderr.write(`skills skipped (the gateway starts without them):\n${lines.join('\n')}\n`);
  return false;
}

/** The issues other than a refused channel (printed already, with its own line). */
function printUnstartable(loaded: LoadedConfig, report: StartCheckReport, cause: ConfigError): void {
  const others = cause.issues.filter(
    (issue) => !report.channels.some((check) => issue.path === `/channels/${check.channel}`),
  );
  if (others.length === 0) return;
  const lines = others.map((issue) => `  ${issue.path || '/'}: ${issue.message}`);
  process.stderr.write(
    `${loaded.path ?? 'built-in config'}: cannot start with this config\n${lines.join('\n')}\n`,
  );
}

function summary(loaded: LoadedConfig, report: StartCheckReport): string[] {
  const { config } = loaded;
  const registered = [
    ...report.toolpacks.builtins,
    ...report.toolpacks.toolpacks.map((toolpack) => `${toolpack.id} (${toolpack.tools.length} tools)`),
  ];
  const models = Object.entries(config.models).map(
    ([name, model]) =>
      `${name} (${model.provider} ${model.model}${model.baseUrl ? ` at ${model.baseUrl}` : ''})`,
  );
  return [
    `config: ${loaded.path ?? 'none found; built-in defaults'} (hash ${loaded.hash.slice(0, 12)})`,
    `state dir: ${config.stateDir}`,
    `http: ${config.http.host}:${config.http.port}, token ${config.http.token ? 'from config' : `from ${path.join(path.resolve(config.stateDir), 'http-token')}`}`,
    `store: ${config.store.url ? describeStoreUrl(config.store.url) : `sqlite (default, in ${config.stateDir})`}`,
    `agents: ${Object.entries(config.agents)
      .map(
        ([id, agent]) => `${id}${agent.model ? ` → ${modelChainText(config, agent.model)}` : ' (no model)'}`,
      )
      .join(', ')} (default ${config.defaultAgent})`,
    `models: ${models.join(', ') || 'none'}`,
    `toolpacks: ${registered.join(', ') || 'none'}`,
    `owners: ${config.owners.join(', ') || 'none'}`,
    `channels: ${enabledChannels(config).join(', ') || 'none'}`,
  ];
}

function enabledChannels(config: Config): string[] {
  const { webchat, slack, discord } = config.channels;
  return [
    ...(webchat.enabled ? ['webchat'] : []),
    ...(slack ? [`slack (${slack.mode})`] : []),
    ...(discord ? ['discord'] : []),
  ];
}

/** One line per platform asked: `slack: ok — …` on stdout or `slack: <reason>` on stderr. */
function printChannels(checks: readonly ChannelCredentialCheck[]): void {
  for (const { channel, result } of checks) {
    if (result.ok) process.stdout.write(`${channel}: ok — ${result.value}\n`);
    else process.stderr.write(`${channel}: ${result.error}\n`);
  }
}

/** Starts each MCP server once and lists its tools: `mcp: <name> (stdio): ready, 14 tools` or why not. */
async function checkMcpServers(
  loaded: LoadedConfig,
  logger: Parameters<typeof probeMcpServers>[0]['logger'],
) {
  if (Object.keys(loaded.config.mcp.servers).length === 0) return true;
  const statuses = await probeMcpServers({
    config: loaded.config,
    configPath: loaded.path ?? DEFAULT_CONFIG_PATH,
    logger,
    scrub: createSecretScrubber(collectSecretValues(loaded.config)),
  });
  for (const status of statuses) {
    if (status.state === 'ready') {
      process.stdout.write(`mcp: ${status.name} (${status.transport}): ready, ${status.tools} tools\n`);
    } else process.stderr.write(`mcp: ${mcpProblem(status)}\n`);
  }
  return statuses.every((status) => status.state === 'ready');
}

function mcpProblem(status: McpServerStatus): string {
  return `${status.name} (${status.transport}) did not come up: ${status.error ?? status.state}; the gateway starts without its tools and retries it`;
}
