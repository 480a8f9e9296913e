import { readAgentInstructions } from '../agents/index.js';
import type { Config } from '../config/index.js';
import { ConfigError, type ConfigIssue } from '../errors/index.js';
import {
  BUILTIN_TOOLPACK_TOOLS,
  type LoadToolpacksResult,
  loadToolpacks,
  type ToolpackProblem,
} from '../toolpacks/index.js';
import { BUILTIN_TOOLS } from '../tools/index.js';

/** Tool names no toolpack may take: the gateway's own tools and every built-in toolpack's. */
export function reservedToolNames(): string[] {
  return [...BUILTIN_TOOLS.map((tool) => tool.name), ...Object.values(BUILTIN_TOOLPACK_TOOLS).flat()];
}

/** Loads (validates) the toolpacks a config registers; never runs toolpack code. */
export function loadConfiguredToolpacks(config: Config, configPath: string): Promise<LoadToolpacksResult> {
  return loadToolpacks({
    entries: config.tools.toolpacks,
    configPath,
    builtinToolNames: reservedToolNames(),
  });
}

export function describeProblem(problem: ToolpackProblem): string {
  return `${problem.file}${problem.pointer ? ` ${problem.pointer}` : ''}: ${problem.message} [${problem.rule}]`;
}

/**
 * The config editor's dry run: what a start reads besides the file — agent prompt files and the
 * toolpacks. A toolpack problem refuses the edit only when it is new: a broken toolpack the running
 * config already has (reported, skipped) does not block unrelated changes.
 */
export function createConfigDryRun(options: { knownProblems: readonly ToolpackProblem[] }) {
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
    return issues;
  };
}
