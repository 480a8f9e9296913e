import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type ParseError, parse, printParseErrorCode } from 'jsonc-parser';
import { ConfigError } from '../errors/index.js';
import { applyPersonas } from './apply-personas.js';
import { substituteEnv } from './env.js';
import { missingVariableHint } from './env-file.js';
import { findJsonTextProblem } from './json-limits.js';
import type { Config } from './schema/schema.js';
import { validateConfig } from './validate.js';

export const DEFAULT_CONFIG_PATH = 'config/gateway.jsonc';

export interface LoadedConfig {
  /** Absolute path of the file, or undefined when running on built-in defaults. */
  path: string | undefined;
  /** Where the path came from, for the start-up log. */
  origin: 'option' | 'environment' | 'default' | 'defaults';
  /** sha256 (hex) of the raw file text; of the empty string when there is no file. */
  hash: string;
  /** The raw text of the file ('' without one). */
  text: string;
  /** The validated config: defaults filled in, `${ENV}` substituted. */
  config: Config;
}

export interface LoadConfigOptions {
  /** `--config PATH`; wins over `SWITCHBOARD_CONFIG`. */
  configPath?: string | undefined;
  environment?: NodeJS.ProcessEnv;
  cwd?: string;
}

export function hashConfigText(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Finds, reads, parses (JSONC), substitutes and validates the config. A path given by option
 * or environment must exist; the default path may be absent, and then the built-in defaults
 * apply. Throws ConfigError naming the file and every JSON path that is wrong.
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const environment = options.environment ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const explicit = options.configPath ?? environment.SWITCHBOARD_CONFIG;
  const origin = options.configPath ? 'option' : environment.SWITCHBOARD_CONFIG ? 'environment' : 'default';
  const file = path.resolve(cwd, explicit || DEFAULT_CONFIG_PATH);

  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && origin === 'default') {
      return {
        path: undefined,
        origin: 'defaults',
        hash: hashConfigText(''),
        text: '',
        config: parseConfigText('', undefined, environment),
      };
    }
    const reason = code === 'ENOENT' ? 'file not found' : `cannot read file (${code ?? String(error)})`;
    throw new ConfigError('CONFIG_READ', file, [{ path: '', message: reason }]);
  }
  return {
    path: file,
    origin,
    hash: hashConfigText(text),
    text,
    config: parseConfigText(text, file, environment),
  };
}

/** Parses and validates config text; exported for dry runs of edits that are not written yet. */
export function parseConfigText(
  text: string,
  file: string | undefined,
  environment: NodeJS.ProcessEnv,
): Config {
  const parsed = parseJsonc(text, file);
  const substituted = substituteEnv(parsed, environment);
  if (substituted.issues.length > 0) {
    const hint = missingVariableHint(substituted.missing, environment);
    throw new ConfigError('CONFIG_ENV_MISSING', file, substituted.issues, hint);
  }
  const withPersonas = applyPersonas(substituted.value, file);
  if (withPersonas.issues.length > 0) throw new ConfigError('CONFIG_INVALID', file, withPersonas.issues);
  const result = validateConfig(withPersonas.value);
  if (!result.ok) throw new ConfigError('CONFIG_INVALID', file, result.error);
  return result.value;
}

/**
 * Parses JSONC config text. Refused before parsing, as CONFIG_PARSE naming the JSON pointer and
 * position: nesting deeper than MAX_CONFIG_DEPTH, a `__proto__` key, a number that is not finite.
 */
export function parseJsonc(text: string, file: string | undefined): unknown {
  if (text.trim() === '') return {};
  const problem = findJsonTextProblem(text);
  if (problem !== undefined) {
    throw new ConfigError('CONFIG_PARSE', file, [{ path: problem.pointer, message: problem.message }]);
  }
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    throw new ConfigError(
      'CONFIG_PARSE',
      file,
      errors.map((error) => ({
        path: '',
        message: `${printParseErrorCode(error.error)} at ${position(text, error.offset)}`,
      })),
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError('CONFIG_PARSE', file, [{ path: '', message: 'the config must be a JSON object' }]);
  }
  return value;
}

function position(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}
