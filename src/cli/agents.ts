import { type Config, loadConfig } from '../base/config/index.js';
import { ConfigError } from '../base/errors/index.js';
import { createLogger } from '../base/logging/index.js';
import { riskSummaryText, unavailableText } from '../engine/tools/index.js';
import { loadConfiguredToolpacks } from '../extensions/toolpacks/index.js';
import { type AgentRiskView, describeAgents, describeRegistry } from '../surfaces/control/index.js';
import { cliEnvironment } from './cli-environment.js';
import { printProblem } from './output.js';

/**
 * `switchboard agents`: each configured agent, its model chain and its risk summary (the union of
 * the risk classes of the tools its allowlist lets it see), from the config and the toolpacks a
 * start would load, without starting anything. Exit 1 when the config does not load.
 */
export async function runAgents(options: { config?: string; envFile?: string }): Promise<void> {
  const environment = cliEnvironment(options);
  if (!environment) return;
  let config: Config;
  let configPath: string | undefined;
  try {
    ({ config, path: configPath } = await loadConfig({ configPath: options.config, environment }));
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    printProblem(error.message);
    return;
  }
  const { logger } = createLogger({ level: 'silent' });
  const toolpacks = await loadConfiguredToolpacks(config, configPath);
  const registry = await describeRegistry({ config, configPath, toolpacks, logger });
  process.stdout.write(`${describeAgents(config, registry).flatMap(agentLines).join('\n')}\n`);
}

/** `main → a → b` then the risk line, and the tools hidden for a missing prerequisite. */
export function agentLines(view: AgentRiskView): string[] {
  const unavailable = unavailableText(view.risk);
  return [
    `${view.agentId}: ${view.models}`,
    `  risk: ${riskSummaryText(view.risk)}`,
    ...(unavailable ? [`  unavailable: ${unavailable}`] : []),
  ];
}
