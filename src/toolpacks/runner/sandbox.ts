import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fail, ok, type Result } from '../../errors/index.js';

/**
 * How a runner process is kept off the network and away from the gateway's processes. Node 20's
 * permission model limits files, child processes and workers, but not sockets or signals; the OS
 * does the rest: a runner starts in its own network namespace (loopback only, nobody else's ports)
 * and PID namespace (no other process can be named, so none can be signalled), in a new session.
 *
 * - `auto` (default): bubblewrap, else util-linux `unshare`; when the machine offers neither, runners
 *   start with the permission model only and a warning (at start and in `doctor`).
 * - `required`: a runner does not start without a sandbox; its calls fail with the reason.
 * - `off`: the permission model only, chosen by the owner.
 */
export const RUNNER_SANDBOX_SETTINGS = ['auto', 'required', 'off'] as const;
export type RunnerSandboxSetting = (typeof RUNNER_SANDBOX_SETTINGS)[number];
export type SandboxKind = 'bubblewrap' | 'unshare';

export interface SandboxAccess {
  /** Paths the runner reads (bootstrap, toolpack directories); bound read-only. */
  read: readonly string[];
  /** Paths the runner writes (workspace, artifacts); bound writable. */
  write: readonly string[];
}

/** How to start the runner: `execPath` runs `[...prefix, node, ...node flags, bootstrap]`. */
export interface SandboxLaunch {
  kind: SandboxKind | 'none';
  execPath: string;
  prefix: string[];
}

/** The sandbox this machine can start, or why none works. */
export type SandboxProbe = Result<{ kind: SandboxKind; executable: string }>;

const PROBE_TIMEOUT_MS = 5_000;

function findExecutable(name: string, environment: NodeJS.ProcessEnv): string | undefined {
  const directories = (environment.PATH ?? '/usr/bin:/bin').split(':').filter(Boolean);
  for (const directory of directories) {
    const candidate = path.join(directory, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

const isRoot = () => process.getuid?.() === 0;

/**
 * bubblewrap: new network, PID, IPC and UTS namespaces; the host's files read-only, with its `/tmp` and
 * `/run` (where local servers keep their sockets) replaced by empty ones; then the granted paths.
 */
function bubblewrapPrefix(access: SandboxAccess): string[] {
  const hidden = ['/tmp', '/run'].filter((directory) => existsSync(directory));
  return [
    '--unshare-net',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--die-with-parent',
    '--new-session',
    '--ro-bind',
    '/',
    '/',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    ...hidden.flatMap((directory) => ['--tmpfs', directory]),
    ...[...new Set(access.read)].flatMap((entry) => ['--ro-bind', entry, entry]),
    ...[...new Set(access.write)].flatMap((entry) => ['--bind', entry, entry]),
  ];
}

/** unshare: new network and PID namespaces (its own /proc); files stay as the permission model allows. */
function unsharePrefix(): string[] {
  return [
    '--net',
    '--pid',
    '--fork',
    '--kill-child',
    '--mount-proc',
    ...(isRoot() ? [] : ['--map-root-user']),
  ];
}

export function sandboxPrefix(kind: SandboxKind, access: SandboxAccess): string[] {
  return kind === 'bubblewrap' ? bubblewrapPrefix(access) : unsharePrefix();
}

/** Runs `node -e 0` inside the sandbox; true when it exits 0 in time. */
function tryRun(executable: string, prefix: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(executable, [...prefix, process.execPath, '-e', '0'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-400);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), PROBE_TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve(error.message);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(undefined);
      else resolve(stderr.trim() || `exited with ${signal ?? `code ${code}`}`);
    });
  });
}

/** Which sandbox this machine can start: bubblewrap first, then unshare; else why neither works. */
export async function probeSandbox(environment: NodeJS.ProcessEnv = process.env): Promise<SandboxProbe> {
  const reasons: string[] = [];
  for (const [kind, name] of [
    ['bubblewrap', 'bwrap'],
    ['unshare', 'unshare'],
  ] as const) {
    const executable = findExecutable(name, environment);
    if (executable === undefined) {
      reasons.push(`${name} is not installed`);
      continue;
    }
    const failure = await tryRun(executable, sandboxPrefix(kind, { read: [], write: [] }));
    if (failure === undefined) return ok({ kind, executable });
    reasons.push(`${name} cannot create namespaces here (${failure})`);
  }
  return fail(reasons.join('; '));
}
