import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { fail, ok, type Result } from '../../../base/errors/index.js';

/**
 * How a runner process is kept off the network, away from the gateway's processes and away from the
 * host's files and sockets. Node 20's permission model limits files, child processes and workers, but
 * not sockets (`net.connect({ path })` reaches any Unix socket: pm2's `rpc.sock`, D-Bus, a daemon under
 * `$HOME`) or signals; the OS does the rest. A runner starts under bubblewrap in its own network
 * namespace (loopback only, nobody else's ports), PID namespace (no other process can be named, so
 * none can be signalled) and session, with a file system built for it: an empty read-only root holding
 * only Node (its executable and the shared libraries `ldd` names), the bootstrap, its toolpacks'
 * directories, its workspace and artifacts, a private `/proc`, a minimal `/dev` and an empty `/tmp`.
 * No file of the host is there unless listed, so no socket of the host can be connected to.
 *
 * - `auto` (default): bubblewrap; when the machine cannot run it, runners start with the permission
 *   model only and a warning (at start and in `doctor`). `unshare` alone is not enough: it keeps the
 *   host's files, and with them every Unix socket on the host.
 * - `required`: a runner does not start without the sandbox; its calls fail with the reason.
 * - `off`: the permission model only, chosen by the owner.
 */
export const RUNNER_SANDBOX_SETTINGS = ['auto', 'required', 'off'] as const;
export type RunnerSandboxSetting = (typeof RUNNER_SANDBOX_SETTINGS)[number];
export type SandboxKind = 'bubblewrap';

export interface SandboxAccess {
  /** Paths the runner reads (bootstrap, toolpack directories); bound read-only. */
  read: readonly string[];
  /** Paths the runner writes (workspace, artifacts); bound writable. */
  write: readonly string[];
  /** Existing folders inside those paths that the runner must not see: an empty tmpfs covers each. */
  hidden?: readonly string[];
}

/** How to start the runner: `execPath` runs `[...prefix, node, ...node flags, bootstrap]`. */
export interface SandboxLaunch {
  kind: SandboxKind | 'none';
  execPath: string;
  prefix: string[];
}

/** A file Node needs to start (the executable, a shared library): the path it is asked for and its real path. */
export interface RuntimeFile {
  path: string;
  real: string;
}

/** The sandbox this machine can start (with the files Node needs inside it), or why none works. */
export type SandboxProbe = Result<{ kind: SandboxKind; executable: string; runtime: readonly RuntimeFile[] }>;

const PROBE_TIMEOUT_MS = 5_000;

function findExecutable(name: string, environment: NodeJS.ProcessEnv): string | undefined {
  const directories = (environment.PATH ?? '/usr/bin:/bin').split(':').filter(Boolean);
  for (const directory of directories) {
    const candidate = path.join(directory, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** The absolute paths in `ldd`'s answer: `libc.so.6 => /lib/…/libc.so.6 (0x…)`, `/lib64/ld-linux…so.2 (0x…)`. */
export function lddPaths(output: string): string[] {
  const paths: string[] = [];
  for (const line of output.split('\n')) {
    const match = /(?:=>\s*|^\s*)(\/\S+)\s+\(0x[0-9a-f]+\)/.exec(line);
    if (match?.[1] !== undefined) paths.push(match[1]);
  }
  return paths;
}

/**
 * The files Node needs in the sandbox: `process.execPath` and the shared libraries `ldd` names for
 * it (none for a static build, or where `ldd` is missing: the probe then shows whether Node starts).
 */
export async function runtimeFiles(environment: NodeJS.ProcessEnv = process.env): Promise<RuntimeFile[]> {
  const ldd = findExecutable('ldd', environment);
  const libraries =
    ldd === undefined
      ? []
      : await new Promise<string[]>((resolve) => {
          execFile(ldd, [process.execPath], { timeout: PROBE_TIMEOUT_MS }, (error, stdout) =>
            resolve(error ? [] : lddPaths(stdout)),
          );
        });
  const files: RuntimeFile[] = [];
  for (const file of new Set([process.execPath, ...libraries])) {
    // A library ldd named that is gone is left out: the probe's test start says whether Node still runs.
    const real = await realpath(file).catch(() => undefined);
    if (real !== undefined) files.push({ path: file, real });
  }
  return files;
}

/** Files of the host that Node reads if present and that hold nothing of anyone's: bound when they exist. */
const OPTIONAL_HOST_FILES = ['/etc/ld.so.cache', '/etc/localtime'];

/**
 * bubblewrap: new network, PID, IPC, UTS (and cgroup) namespaces, a new session and no capabilities
 * (a gateway run as root would otherwise hand its runners root's); a root that
 * starts empty and holds only Node's runtime files, the granted paths (read-only or writable), a
 * private `/proc`, a minimal `/dev` (no `/dev/log`) and an empty `/tmp`; the root is then made
 * read-only. Parents of the granted paths exist as empty directories, so nothing beside them shows.
 */
function bubblewrapPrefix(access: SandboxAccess, runtime: readonly RuntimeFile[]): string[] {
  const runtimeBinds = runtime.flatMap((file) => [
    '--ro-bind',
    file.real,
    file.real,
    ...(file.path === file.real ? [] : ['--symlink', file.real, file.path]),
  ]);
  return [
    '--unshare-net',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--die-with-parent',
    '--new-session',
    // bwrap started by root keeps root's capabilities in the sandbox unless told otherwise.
    '--cap-drop',
    'ALL',
    ...runtimeBinds,
    ...OPTIONAL_HOST_FILES.flatMap((file) => ['--ro-bind-try', file, file]),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    ...[...new Set(access.read)].flatMap((entry) => ['--ro-bind', entry, entry]),
    ...[...new Set(access.write)].flatMap((entry) => ['--bind', entry, entry]),
    ...[...new Set(access.hidden ?? [])].flatMap((entry) => ['--tmpfs', entry]),
    '--remount-ro',
    '/',
  ];
}

export function sandboxPrefix(access: SandboxAccess, runtime: readonly RuntimeFile[]): string[] {
  return bubblewrapPrefix(access, runtime);
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

/** Whether this machine can start the sandbox: bubblewrap, tried with `node -e 0` inside; else why not. */
export async function probeSandbox(environment: NodeJS.ProcessEnv = process.env): Promise<SandboxProbe> {
  const executable = findExecutable('bwrap', environment);
  if (executable === undefined) return fail('bwrap is not installed');
  const runtime = await runtimeFiles(environment);
  const failure = await tryRun(executable, sandboxPrefix({ read: [], write: [] }, runtime));
  if (failure === undefined) return ok({ kind: 'bubblewrap', executable, runtime });
  return fail(`bwrap cannot build a sandbox here (${failure})`);
}
