/**
 * How a runner process is confined: Node's permission model, given as `execArgv` to `fork`. With
 * the model on and no other grant, the process may not spawn child processes, start workers, load
 * native addons or open the inspector; file access is limited to the paths below.
 */
import { SwitchboardError } from '../../../base/errors/index.js';

export interface RunnerAccess {
  /** The bootstrap script: Node must read the entry point itself. */
  bootstrap: string;
  /** Directories and files the runner may read (toolpack directories, workspace, artifacts). */
  read: readonly string[];
  /** Directories the runner may write (workspace, artifacts). */
  write: readonly string[];
}

/** Environment variables a runner gets; the gateway's own (API keys, tokens, NODE_OPTIONS) stay out. */
const PASSED_ENVIRONMENT = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ'];

/** The flag that turns the permission model on: `--permission` where Node has it (22.13+), else the experimental one. */
export function permissionFlag(): string {
  const major = Number(process.versions.node.split('.')[0]);
  return process.allowedNodeEnvironmentFlags.has('--permission') || major >= 23
    ? '--permission'
    : '--experimental-permission';
}

/**
 * Node 20.7 and later take one `--allow-fs-*` flag per path; earlier 20.x releases took one
 * comma-separated list, in which a path with a comma cannot be written.
 */
function multipleAllowFlags(): boolean {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  return major > 20 || (major === 20 && minor >= 7);
}

function allowFlags(name: string, paths: readonly string[]): string[] {
  const unique = [...new Set(paths)];
  if (multipleAllowFlags()) return unique.map((entry) => `${name}=${entry}`);
  const withComma = unique.find((entry) => entry.includes(','));
  if (withComma !== undefined) {
    throw new SwitchboardError(
      'TOOLPACK_RUNNER_GRANT',
      `${withComma} contains a comma, which this Node release cannot grant; use Node 20.7 or later`,
    );
  }
  return [`${name}=${unique.join(',')}`];
}

/** `execArgv` for the runner: the permission model, its grants, and no experimental-feature notice on stderr. */
export function runnerExecArgv(access: RunnerAccess): string[] {
  const quiet = process.allowedNodeEnvironmentFlags.has('--disable-warning')
    ? ['--disable-warning=ExperimentalWarning']
    : [];
  return [
    permissionFlag(),
    ...allowFlags('--allow-fs-read', [access.bootstrap, ...access.read]),
    ...allowFlags('--allow-fs-write', access.write),
    ...quiet,
  ];
}

export function runnerEnvironment(source: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = {};
  for (const name of PASSED_ENVIRONMENT) {
    const value = source[name];
    if (value !== undefined) environment[name] = value;
  }
  return environment;
}
