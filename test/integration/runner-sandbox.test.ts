import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import {
  createRunnerHost,
  createRunnerSandbox,
  probeSandbox,
  type RunnerHost,
  type RunnerSandboxSetting,
  type SandboxProbe,
} from '../../src/extensions/toolpacks/index.js';
import { sandboxPrefix } from '../../src/extensions/toolpacks/runner/sandbox.js';
import { freePort } from '../helpers/machine.js';
import { childEnvironment, REPO_ROOT, runCommand } from '../helpers/process.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { loadToolpackFixture } from '../helpers/toolpacks.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/runner-toolpacks/', import.meta.url));

let root: string;
let host: RunnerHost | undefined;
let logLines: Array<Record<string, unknown>>;
const cleanups: Array<() => Promise<void> | void> = [];

beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'runner-sandbox-')));
  logLines = [];
});

afterEach(async () => {
  await host?.stop();
  host = undefined;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await rm(root, { recursive: true, force: true });
});

const hostile = () => loadToolpackFixture(path.join(FIXTURES, 'hostile'));

async function startHost(
  setting: RunnerSandboxSetting,
  probe?: () => Promise<SandboxProbe>,
  hidden: readonly string[] = [],
) {
  const { logger } = createLogger({
    level: 'debug',
    destination: { write: (line: string) => logLines.push(JSON.parse(line)) },
  });
  host = createRunnerHost({
    agentId: 'intruder',
    project: 'default',
    toolpacks: [await hostile()],
    workspace: path.join(root, 'workspace'),
    artifactsDir: path.join(root, 'artifacts'),
    hidden,
    timeoutMs: 10_000,
    logger,
    sandbox: createRunnerSandbox({ setting, logger, ...(probe ? { probe } : {}) }),
    callSupport: async () => ({ output: 'unused' }),
    recordSignal: async () => {},
  });
  return host;
}

async function call(runner: RunnerHost, tool: string, input: object) {
  const answer = await runner.call({
    toolpackId: 'hostile',
    tool,
    input,
    activation: { activationId: 'activation-1', token: 'token-1' },
  });
  if (!answer.ok) throw new Error(answer.error);
  return answer.value.output;
}

/** A TCP server on loopback standing in for the gateway's HTTP port or the model's. */
async function localServer(): Promise<{ port: number; connections: () => number }> {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as net.AddressInfo).port, connections: () => connections };
}

function connectFromHere(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

function connectPathFromHere(socketPath: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ path: socketPath });
    socket.on('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/** A process the runner will try to signal, standing in for the gateway. */
async function victim(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  cleanups.push(() => {
    child.kill('SIGKILL');
  });
  await new Promise((resolve) => child.once('spawn', resolve));
  return child;
}

/** A listening Unix socket, as a local daemon under $HOME keeps one; counts who connects. */
async function unixServer(socketPath: string): Promise<{ connections: () => number }> {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { connections: () => connections };
}

/** A real pm2 daemon with its own PM2_HOME under `home` (as the deployment of docs/operations.md has one); its RPC socket. */
async function pm2Daemon(home: string): Promise<string> {
  const pm2Home = path.join(home, '.pm2');
  const env = childEnvironment({ HOME: home, PM2_HOME: pm2Home });
  const pm2 = (...args: string[]) =>
    runCommand(process.execPath, [path.join(REPO_ROOT, 'node_modules/pm2/bin/pm2'), ...args], { env });
  cleanups.push(async () => {
    await pm2('kill');
  });
  await pm2('ping');
  const socket = path.join(pm2Home, 'rpc.sock');
  expect(existsSync(socket)).toBe(true);
  return socket;
}

describe('toolpack runner sandbox', () => {
  it('finds bubblewrap on this machine (scripts/ensure-test-packages.sh installs it)', async () => {
    expect(await probeSandbox()).toMatchObject({ ok: true, value: { kind: 'bubblewrap' } });
  });

  it('a runner reaches no local server: not the gateway, not the model, not Redis', async () => {
    const gateway = await localServer();
    const redis: RedisServer = await startRedisServer();
    cleanups.push(() => redis.stop());
    const runner = await startHost('auto');
    const redisPort = Number(new URL(redis.url).port);
    const reached = [
      await call(runner, 'hostile.connect', { port: gateway.port }),
      await call(runner, 'hostile.connect', { port: redisPort }),
    ];
    expect(reached.filter((outcome) => outcome === 'connected')).toEqual([]);
    expect(gateway.connections()).toBe(0);
  });

  it("a runner connects to no Unix socket of the host: pm2's RPC socket, one listening under $HOME, D-Bus", async () => {
    // Under the real $HOME: the sandbox hides /tmp and /run, where the test's other files are.
    const home = await mkdtemp(path.join(homedir(), '.runner-sandbox-home-'));
    cleanups.unshift(() => rm(home, { recursive: true, force: true }));
    const daemon = await unixServer(path.join(home, 'daemon.sock'));
    const targets = [await pm2Daemon(home), path.join(home, 'daemon.sock')];
    const dbus = '/run/dbus/system_bus_socket';
    if (existsSync(dbus)) targets.push(dbus);
    // The same sockets are reachable from outside the sandbox: what the runner meets is the sandbox.
    expect(await connectPathFromHere(path.join(home, 'daemon.sock'))).toBe('connected');
    const runner = await startHost('auto');
    const outcomes = [];
    for (const target of targets) outcomes.push(await call(runner, 'hostile.connectPath', { path: target }));
    expect(outcomes).toEqual(targets.map(() => 'ENOENT'));
    expect(daemon.connections()).toBe(1);
  });

  it('a runner sees no host file it was not granted: its view has only Node, its toolpack and its folders', async () => {
    const runner = await startHost('auto');
    // Beside Node's permission model (which refuses reads outside the grants), the files are not there at all.
    expect(await call(runner, 'hostile.read', { path: '/etc/passwd' })).toMatch(
      /^(ERR_ACCESS_DENIED|ENOENT)$/,
    );
    expect(await call(runner, 'hostile.connectPath', { path: '/etc/passwd' })).toBe('ENOENT');
  });

  it("a runner does not see other people's posted files even inside its workspace, and still sees its own files", async () => {
    // A workspace that holds the state directory (the config's folder, say): every person's uploads are in it.
    const uploads = path.join(root, 'workspace', 'data', 'uploads');
    await mkdir(path.join(uploads, 'main', 'slack:UALICE'), { recursive: true });
    await writeFile(path.join(uploads, 'main', 'slack:UALICE', 'diary.txt'), 'alice only');
    await writeFile(path.join(root, 'workspace', 'notes.txt'), 'shared notes');
    const runner = await startHost('auto', undefined, [uploads]);
    const diary = path.join(uploads, 'main', 'slack:UALICE', 'diary.txt');
    expect(await call(runner, 'hostile.read', { path: diary })).toBe('ENOENT');
    expect(await call(runner, 'hostile.read', { path: path.join(root, 'workspace', 'notes.txt') })).toBe(
      'shared notes',
    );
  });

  it('a process in the sandbox holds no capabilities, even when the gateway runs as root', async () => {
    const probe = await probeSandbox();
    if (!probe.ok) throw new Error(probe.error);
    const prefix = sandboxPrefix({ read: [], write: [] }, probe.value.runtime);
    const script = "process.stdout.write(require('fs').readFileSync('/proc/self/status', 'utf8'))";
    const child = spawn(probe.value.executable, [...prefix, process.execPath, '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let status = '';
    child.stdout.on('data', (chunk: Buffer) => {
      status += chunk.toString();
    });
    await new Promise((resolve) => child.once('close', resolve));
    const capabilities = status.split('\n').filter((line) => /^Cap(Prm|Eff|Amb):/.test(line));
    expect(capabilities).toEqual([
      'CapPrm:\t0000000000000000',
      'CapEff:\t0000000000000000',
      'CapAmb:\t0000000000000000',
    ]);
  });

  it('a port the runner listens on cannot be reached from outside its sandbox', async () => {
    const runner = await startHost('auto');
    const port = await freePort();
    expect(await call(runner, 'hostile.listen', { port })).toBe('listening');
    expect(await connectFromHere(port)).not.toBe('connected');
  });

  it('a runner cannot signal its parent (the gateway) or any other process', async () => {
    let terms = 0;
    const onTerm = () => {
      terms += 1;
    };
    process.on('SIGTERM', onTerm);
    cleanups.push(() => {
      process.off('SIGTERM', onTerm);
    });
    const target = await victim();
    const runner = await startHost('auto');
    const outcome = (await call(runner, 'hostile.signal', { pid: target.pid })) as Record<string, string>;
    expect(outcome.target).toBe('ESRCH');
    // Give a delivered signal its turn of the event loop before counting.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(terms).toBe(0);
    expect(target.exitCode).toBeNull();
    expect(target.signalCode).toBeNull();
  });

  it('"required" refuses to start a runner where the machine has no sandbox, naming why', async () => {
    const runner = await startHost('required', async () => ({ ok: false, error: 'bwrap is not installed' }));
    const answer = await runner.call({
      toolpackId: 'hostile',
      tool: 'hostile.connect',
      input: { port: 1 },
      activation: { activationId: 'activation-1', token: 'token-1' },
    });
    expect(answer).toEqual({
      ok: false,
      error:
        'the toolpack runner for agent intruder could not start: no runner sandbox on this machine (bwrap is not installed); tools.runnerSandbox is "required"',
    });
  });

  it('"auto" on a machine without a sandbox runs the runner and warns once, naming the fix', async () => {
    const gateway = await localServer();
    const runner = await startHost('auto', async () => ({ ok: false, error: 'bwrap is not installed' }));
    expect(await call(runner, 'hostile.connect', { port: gateway.port })).toBe('connected');
    expect(await call(runner, 'hostile.connect', { port: gateway.port })).toBe('connected');
    const warnings = logLines.filter((line) => String(line.msg).startsWith('toolpack runners start without'));
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]?.msg)).toContain('apt-get install bubblewrap');
  });
});
