import { access } from 'node:fs/promises';
import path from 'node:path';
import {
  absentConfigFile,
  type ConfigEditor,
  ConfigSchema,
  createConfigEditor,
  DEFAULT_CONFIG_PATH,
  lookupConfigSchema,
  parseConfigPath,
  readEnvironment,
  substituteEnv,
} from '../base/config/index.js';
import { ConfigError } from '../base/errors/index.js';
import { createLogger } from '../base/logging/index.js';
import { printJson, printProblem } from './output.js';

/**
 * `switchboard config get [path]` and `switchboard config patch '<json>'`: the gateway tool's
 * config actions from a shell, for the operator who owns the machine (so no protected paths).
 * The file is found like `start` finds it: `--config`, then `SWITCHBOARD_CONFIG`, then
 * `config/gateway.jsonc` in the working directory.
 */

interface ConfigCommandOptions {
  config?: string;
  envFile?: string;
}

/**
 * Prints the redacted snapshot `{ path, hash, config }`, or only the value at a dot path. A file
 * that does not load prints `{ path, hash, valid: false, errors }` like the gateway tool (a secret
 * under a misspelled key is not redacted, so not shown here either) and exits 1.
 */
export async function runConfigGet(
  valuePath: string | undefined,
  options: ConfigCommandOptions,
): Promise<void> {
  try {
    const { snapshot } = await openConfigEditor(options);
    if (!('config' in snapshot)) {
      printJson(snapshot);
      return printProblem(`${snapshot.path} does not load; fix it in the file (or with config patch)`);
    }
    if (valuePath === undefined) return printJson(snapshot);
    const parsed = parseConfigPath(valuePath);
    if (!parsed.ok) return printProblem(parsed.error);
    const known = lookupConfigSchema(valuePath);
    if (!known.ok) return printProblem(known.error);
    let value: unknown = snapshot.config;
    for (const part of parsed.value) {
      if (value === null || typeof value !== 'object' || !Object.hasOwn(value, part)) {
        return printProblem(`${valuePath} is not set in ${snapshot.path}; the default applies`);
      }
      value = (value as Record<string | number, unknown>)[part];
    }
    printJson(value);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    printProblem(error.message);
  }
}

/** Merge-patches the file from its current hash, then says how a running gateway picks it up. */
export async function runConfigPatch(
  raw: string,
  options: ConfigCommandOptions & {
    note?: string;
    notify?: string;
    replace?: string[];
    allowOperatorLockout?: boolean;
  },
): Promise<void> {
  // Imported when asked for: the route syntax comes through the gateway, which `config get` does not load.
  const notify =
    options.notify === undefined ? undefined : (await import('./notify.js')).parseNotifyRoute(options.notify);
  if (notify && !notify.ok) return printProblem(notify.error);
  try {
    const { editor, snapshot, stateDir } = await openConfigEditor(options);
    const result = await editor.patch({
      raw,
      baseHash: snapshot.hash,
      actor: 'cli',
      via: 'cli',
      ...(options.note === undefined ? {} : { note: options.note }),
      ...(options.replace === undefined ? {} : { replacePaths: options.replace }),
      ...(options.allowOperatorLockout ? { allowOperatorLockout: true } : {}),
    });
    if (!result.ok) return printProblem(result.error);
    if (!result.changed) {
      const unnoted = notify ? '; no note recorded' : '';
      process.stdout.write(`no change; ${result.path} was not written (hash ${result.hash})${unnoted}\n`);
      return;
    }
    let noted = false;
    if (notify?.ok) {
      const stats = { mode: 'config.patch', changedPaths: result.changedPaths, hash: result.hash };
      const { recordShellNote } = await import('../host/index.js');
      const logger = createLogger({ level: 'warn', destination: process.stderr }).logger;
      const route = notify.value;
      const recorded = await recordShellNote({ stateDir, route, message: options.note, stats, logger });
      if (!recorded.ok) printProblem(`the change is written, but ${recorded.error}`);
      noted = recorded.ok;
    }
    const lines = [
      `changed: ${result.changedPaths.join(', ')}`,
      ...(result.removedPaths.length > 0 ? [`removed: ${result.removedPaths.join(', ')}`] : []),
      `file: ${result.path}`,
      `hash: ${result.hash}`,
      ...(result.warning ? [`warning: ${result.warning}`] : []),
      await howToRestart(stateDir),
      ...(noted ? [`${options.notify} gets a note after the restart`] : []),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    printProblem(error.message);
  }
}

/** How the gateway running from `stateDir` picks the edit up, with its pid when `gateway.pid` names a live one. */
async function howToRestart(stateDir: string): Promise<string> {
  const { pidFileOf, readGatewayPid } = await import('../host/index.js');
  const pid = await readGatewayPid(stateDir);
  if (pid.ok)
    return `The running gateway (pid ${pid.value}) picks this up on restart: switchboard restart, kill -USR1 ${pid.value}, or under pm2 pm2 sendSignal SIGUSR1 switchboard`;
  return `No gateway runs from ${path.resolve(stateDir)} now (no live pid in ${pidFileOf(stateDir)}): the next start reads the file; one started elsewhere picks it up on restart (switchboard restart --pid PID, or pm2 sendSignal SIGUSR1 switchboard)`;
}

/**
 * The editor of the file, its snapshot (whose hash is the base of a patch), and the environment it
 * resolves `${NAME}` from (process over env file); `setup` writes through it too.
 */
export async function openConfigEditor(options: ConfigCommandOptions) {
  // The env file too: an edit naming `${NAME}` validates against what a start would read.
  const environment = readEnvironment({ envFile: options.envFile });
  const file = path.resolve(options.config ?? (environment.SWITCHBOARD_CONFIG || DEFAULT_CONFIG_PATH));
  // The state dir is not needed to read; the snapshot tells where it is for the write.
  const reader = createConfigEditor({ path: file, stateDir: process.cwd(), environment });
  const { config } = await reader.snapshot({ includeInvalid: true });
  const stateDir = path.resolve(stateDirOf(config, environment));
  // No file yet: the gateway runs on built-in defaults, and the first edit writes what it relies on.
  const absent = await access(file).then(
    () => false,
    () => true,
  );
  const editor: ConfigEditor = createConfigEditor({
    path: file,
    stateDir,
    environment,
    // The gateway's start check: a config that cannot start is not written.
    // Imported when an edit is checked: it loads the gateway, which `config get` does not need.
    dryRun: async (...args) =>
      (await import('./start-check.js')).createCliStartCheck(file, environment)(...args),
    ...(absent ? { absentFile: absentConfigFile(file) } : {}),
  });
  return { editor, snapshot: await editor.snapshot(), stateDir, environment };
}

/**
 * The file's `stateDir` as the gateway resolves it (`${ENV}` substituted, default `./data`), read
 * from the file itself rather than a full load, so that `config patch` can repair a config that
 * no longer validates. Its value is not a secret, so the redacted snapshot holds it as written.
 */
function stateDirOf(config: Record<string, unknown>, environment: NodeJS.ProcessEnv): string {
  const fallback = ConfigSchema.properties.stateDir.default as string;
  if (typeof config.stateDir !== 'string') return fallback;
  const substituted = substituteEnv(config.stateDir, environment);
  return substituted.issues.length === 0 ? String(substituted.value) : fallback;
}
