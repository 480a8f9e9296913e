import { readAgentInstructions } from '../agents/index.js';
import { checkChannelCredentials } from '../channels/index.js';
import type { Config } from '../config/index.js';
import { ConfigError, type ConfigIssue } from '../errors/index.js';
import type { ToolpackProblem } from '../toolpacks/index.js';
import { describeProblem, loadConfiguredToolpacks } from './toolpack-check.js';

/**
 * The config editor's dry run: what a start reads besides the file — agent prompt files, the
 * toolpacks, and the Slack and Discord credentials. A toolpack problem refuses the edit only when
 * it is new: a broken toolpack the running config already has (reported, skipped) does not block
 * unrelated changes. Likewise a platform is asked only when the edit changes how the gateway
 * connects to it, so an unrelated edit never waits on Slack or Discord; a refused token or an
 * unreachable platform then refuses the edit, because after the restart that channel (perhaps the
 * one the owner is typing in) would be gone.
 */
export function createConfigDryRun(options: {
  knownProblems: readonly ToolpackProblem[];
  /** The running config: what the channels connect with now. */
  current: Config;
}) {
  const known = new Set(options.knownProblems.map(describeProblem));
  return async (config: Config, configPath: string): Promise<ConfigIssue[]> => {
    const issues: ConfigIssue[] = [];
    try {
      await readAgentInstructions(config, configPath);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      issues.push(...error.issues);
    }
    const { problems } = await loadConfiguredToolpacks(config, configPath);
    for (const problem of problems) {
      const text = describeProblem(problem);
      if (!known.has(text)) issues.push({ path: '/tools/toolpacks', message: `toolpack refused: ${text}` });
    }
    issues.push(...(await checkChangedChannels(options.current, config)));
    return issues;
  };
}

async function checkChangedChannels(current: Config, next: Config): Promise<ConfigIssue[]> {
  /** The fields a channel connects with, compared as JSON between the running and the new config. */
  const changed = <T extends object>(value: T | undefined, before: T | undefined, keys: (keyof T)[]) =>
    value !== undefined &&
    JSON.stringify(keys.map((key) => value[key])) !== JSON.stringify(keys.map((key) => before?.[key]));
  const { slack, discord } = next.channels;
  const checks = await checkChannelCredentials({
    slack: changed(slack, current.channels.slack, ['mode', 'botToken', 'appToken', 'apiUrl'])
      ? slack
      : undefined,
    discord: changed(discord, current.channels.discord, ['token', 'apiBase']) ? discord : undefined,
  });
  return checks.flatMap(({ channel, result }) =>
    result.ok ? [] : [{ path: `/channels/${channel}`, message: result.reason }],
  );
}
