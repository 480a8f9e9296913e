import type { ConfigEditorOptions } from '../base/config/index.js';
import { loadConfig } from '../base/config/index.js';
import { ConfigError } from '../base/errors/index.js';
import { createLogger } from '../base/logging/index.js';
import { loadConfiguredToolpacks } from '../extensions/toolpacks/index.js';
import { checkStartable, type RunningGateway } from '../host/index.js';

/**
 * The shell CLI's dry run for `config patch`: the gateway's start check, with the file as it is
 * now standing in for the running config (a gateway runs that file after its next restart), so
 * unchanged channels are not asked and the file's known toolpack problems do not refuse the edit.
 */
export function createCliStartCheck(
  file: string,
  environment: NodeJS.ProcessEnv,
): NonNullable<ConfigEditorOptions['dryRun']> {
  const { logger } = createLogger({ level: 'silent' });
  return async (config, configPath, { via }) => {
    const running = await currentConfig(file, environment);
    const report = await checkStartable(config, configPath, { running, via, logger });
    return report.issues;
  };
}

/** The file's config and its toolpack problems, or undefined when it does not load (being repaired). */
async function currentConfig(
  file: string,
  environment: NodeJS.ProcessEnv,
): Promise<RunningGateway | undefined> {
  try {
    const loaded = await loadConfig({ configPath: file, environment });
    const { problems } = await loadConfiguredToolpacks(loaded.config, loaded.path);
    return { config: loaded.config, toolpackProblems: problems };
  } catch (error) {
    if (error instanceof ConfigError) return undefined;
    throw error;
  }
}
