import { readFileSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseEnv } from 'node:util';
import writeFileAtomic from 'write-file-atomic';
import { ConfigError } from '../errors/index.js';

/** The variable naming the env file (and, in an environment read through it, the file it was read from). */
export const ENV_FILE_VARIABLE = 'SWITCHBOARD_ENV_FILE';

/** The env file when nothing names one: beside the default state dir, under the working directory. */
export const DEFAULT_ENV_FILE = 'data/.env';

export interface ReadEnvironmentOptions {
  /** `--env-file PATH`: must exist. Otherwise `SWITCHBOARD_ENV_FILE`, then `data/.env` (either may be absent). */
  envFile?: string | undefined;
  /** The process's environment (default `process.env`); its variables win over the file's. */
  environment?: NodeJS.ProcessEnv;
  cwd?: string;
}

/**
 * The environment `${NAME}` references are read from: the process's own variables over the env
 * file's `NAME=value` lines (dotenv syntax, Node's `util.parseEnv`), with `SWITCHBOARD_ENV_FILE`
 * set to the file's absolute path so that a missing variable's message can name it. Read again
 * at every call: the gateway calls it at each start and restart, so an edited file needs a
 * restart, never a new process. `process.env` is not changed (child processes do not inherit
 * the file's secrets). Throws ConfigError when the file cannot be read, or an explicit one is absent.
 */
export function readEnvironment(options: ReadEnvironmentOptions = {}): NodeJS.ProcessEnv {
  const environment = options.environment ?? process.env;
  const file = envFilePath({ ...options, environment });
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // The default file, or one the environment names for later (pm2's ecosystem file), may be absent.
    if (code !== 'ENOENT' || options.envFile !== undefined) {
      const reason = code === 'ENOENT' ? 'file not found (--env-file)' : `cannot read the env file (${code})`;
      throw new ConfigError('CONFIG_READ', file, [{ path: '', message: reason }]);
    }
  }
  return { ...parseEnv(text), ...environment, [ENV_FILE_VARIABLE]: file };
}

/** The env file's absolute path: `--env-file`, then `SWITCHBOARD_ENV_FILE`, then `data/.env`. */
export function envFilePath(options: ReadEnvironmentOptions = {}): string {
  const environment = options.environment ?? process.env;
  const named = options.envFile ?? environment[ENV_FILE_VARIABLE];
  return path.resolve(options.cwd ?? process.cwd(), named || DEFAULT_ENV_FILE);
}

/**
 * What to do about unset variables: where they are read from and how to set them, for the
 * message of a config that names them (start, doctor, a config edit from the chat or the shell).
 */
export function missingVariableHint(names: readonly string[], environment: NodeJS.ProcessEnv): string {
  const file = environment[ENV_FILE_VARIABLE] ?? `${DEFAULT_ENV_FILE} under the working directory`;
  const lines = names.map((name) => `${name}=...`).join(', ');
  return (
    `Variables are read from the process's environment and from the env file ${file} ` +
    `(another file: --env-file or ${ENV_FILE_VARIABLE}). Add ${lines} to that file (chmod 600; ` +
    '`npx switchboard setup` writes it), then start the gateway again; a running gateway reads the ' +
    'file at each restart (`npx switchboard restart`, or `pm2 restart switchboard` under pm2).'
  );
}

/**
 * Sets variables in an env file (created 0600 in a 0700 directory when absent; made 0600 when
 * looser): a line `NAME=...` already there is replaced in place, others are appended; comments and
 * other lines stay. Written atomically. A value with a line break is refused.
 */
export async function writeEnvVariables(
  file: string,
  values: Readonly<Record<string, string>>,
): Promise<void> {
  const lines: string[] = await readFile(file, 'utf8').then(
    (text) => text.split('\n'),
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw error;
    },
  );
  if (lines.at(-1) === '') lines.pop();
  for (const [name, value] of Object.entries(values)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new Error(`not a variable name: ${JSON.stringify(name)}`);
    if (/[\r\n]/.test(value)) throw new Error(`${name}: a value in an env file cannot hold a line break`);
    const line = `${name}=${quoteEnvValue(value)}`;
    const at = lines.findIndex((existing) => new RegExp(`^\\s*(export\\s+)?${name}\\s*=`).test(existing));
    if (at >= 0) lines[at] = line;
    else lines.push(line);
  }
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFileAtomic(file, `${lines.join('\n')}\n`, { mode: 0o600 });
}

/** Plain when safe, else in single quotes (taken literally), else double quotes. */
function quoteEnvValue(value: string): string {
  if (/^[A-Za-z0-9_\-.:/+=@,%]*$/.test(value)) return value;
  return value.includes("'") ? `"${value}"` : `'${value}'`;
}
