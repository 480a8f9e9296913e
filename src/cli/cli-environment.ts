import { readEnvironment } from '../base/config/index.js';
import { ConfigError } from '../base/errors/index.js';
import { printProblem } from './output.js';

/**
 * The environment a command reads the config with: the process's over the env file's (`--env-file`,
 * `SWITCHBOARD_ENV_FILE`, `data/.env`). Undefined, with the problem printed and exit code 1, when
 * the file cannot be read.
 */
export function cliEnvironment(options: { envFile?: string }): NodeJS.ProcessEnv | undefined {
  try {
    return readEnvironment({ envFile: options.envFile });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    printProblem(error.message);
    return undefined;
  }
}
