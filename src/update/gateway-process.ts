import { spawn } from 'node:child_process';
import { open, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parse } from 'jsonc-parser';
import { errorText, fail, ok, type Result } from '../base/errors/index.js';
import { readReadiness, waitUntilReady } from './canary.js';
import { processAlive } from './ledger.js';
import { findPm2Package, withPm2 } from './pm2.js';
import type { GatewayLaunch } from './types.js';

/** The environment of a process (Linux: /proc/<pid>/environ). */
async function environmentOf(pid: number): Promise<Record<string, string>> {
  const text = await readFile(`/proc/${pid}/environ`, 'utf8');
  return Object.fromEntries(
    text
      .split('\0')
      .filter(Boolean)
      .map((pair) => {
        const at = pair.indexOf('=');
        return [pair.slice(0, at), pair.slice(at + 1)];
      }),
  );
}

/**
 * How the gateway with this pid was started, read from /proc (Linux): under pm2 (its `pm_id` and
 * `name` in the environment) or by hand (its node binary, arguments and working directory), so
 * that the updater starts it again the same way.
 */
export async function describeLaunch(pid: number): Promise<Result<GatewayLaunch>> {
  try {
    const environment = await environmentOf(pid);
    if (environment.pm_id !== undefined) {
      const found = await findPm2Package({
        container: pid === process.pid ? process.argv[1] : undefined,
        path: process.env.PATH,
      });
      if (!found.ok) return found;
      return ok({
        supervisor: 'pm2',
        pmId: Number(environment.pm_id),
        name: environment.name ?? '',
        pm2: { package: found.value, home: environment.PM2_HOME },
      });
    }
    const [, ...args] = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').filter(Boolean);
    return ok({
      supervisor: 'self',
      execPath: await readlink(`/proc/${pid}/exe`),
      args,
      cwd: await readlink(`/proc/${pid}/cwd`),
    });
  } catch (error) {
    return fail(`how the gateway (pid ${pid}) was started could not be read from /proc: ${errorText(error)}`);
  }
}

/** Where the gateway of a config answers `/readyz`: its port, on loopback when it binds every address. */
export async function readyAddress(configFile: string): Promise<{ host: string; port: number }> {
  const config = (parse(await readFile(configFile, 'utf8')) ?? {}) as {
    http?: { host?: string; port?: number };
  };
  const host = config.http?.host;
  return {
    host:
      host === undefined || host === '0.0.0.0' || host === '::' || host === 'localhost' ? '127.0.0.1' : host,
    port: config.http?.port ?? 8787,
  };
}

/** Waits until `pid` has exited; false when it had not after `ms`. */
async function waitForExit(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!processAlive(pid)) return true;
    await sleep(100);
  }
  return !processAlive(pid);
}

/** What restarting the gateway needs: how it runs, its pid now, its environment, where its output goes. */
export interface RestartTarget {
  launch: GatewayLaunch;
  pid: number;
  environment: NodeJS.ProcessEnv;
  logFile: string;
  stopTimeoutMs: number;
}

type Pm2Launch = Extract<GatewayLaunch, { supervisor: 'pm2' }>;

/** The pid pm2 runs for the gateway's app now. */
export function pm2Pid(launch: Pm2Launch): Promise<number | undefined> {
  return withPm2(
    launch.pm2,
    (pm2) =>
      new Promise((resolve, reject) =>
        pm2.describe(launch.pmId, (error, list) => (error ? reject(error) : resolve(list[0]?.pid))),
      ),
  );
}

/** `pm2 stop` or `pm2 restart` of the gateway's app, through pm2's API. */
function pm2Command(launch: Pm2Launch, command: 'stop' | 'restart'): Promise<void> {
  return withPm2(
    launch.pm2,
    (pm2) =>
      new Promise<void>((resolve, reject) =>
        pm2[command](launch.pmId, (error) => (error ? reject(error) : resolve())),
      ),
  );
}

/** Stops the gateway: `pm2 stop` under pm2; else SIGTERM, and SIGKILL after `stopTimeoutMs`. */
export async function stopGateway(target: RestartTarget): Promise<Result<void>> {
  const { launch } = target;
  try {
    if (launch.supervisor === 'pm2') {
      await pm2Command(launch, 'stop');
      return ok(undefined);
    }
    if (target.pid > 0 && processAlive(target.pid)) {
      process.kill(target.pid, 'SIGTERM');
      if (!(await waitForExit(target.pid, target.stopTimeoutMs))) {
        process.kill(target.pid, 'SIGKILL');
        await waitForExit(target.pid, 5000);
      }
    }
    return ok(undefined);
  } catch (error) {
    return fail(`stopping the gateway failed: ${errorText(error)}`);
  }
}

/**
 * Stops the gateway and starts it again from the checkout as it is now: under pm2 `pm2 restart`
 * through its API; else a stop and a new detached process in its own session with the same
 * arguments, directory and environment. Resolves to the new pid.
 */
export async function restartGateway(target: RestartTarget): Promise<Result<number>> {
  const { launch } = target;
  try {
    if (launch.supervisor === 'pm2') {
      await pm2Command(launch, 'restart');
      const pid = await pm2Pid(launch);
      return pid ? ok(pid) : fail(`pm2 runs no process for app ${launch.pmId} after its restart`);
    }
    const stopped = await stopGateway(target);
    if (!stopped.ok) return stopped;
    const log = await open(target.logFile, 'a', 0o600);
    const child = spawn(launch.execPath, launch.args, {
      cwd: launch.cwd,
      env: target.environment,
      detached: true,
      stdio: ['ignore', log.fd, log.fd],
    });
    await log.close();
    child.unref();
    if (child.pid === undefined) return fail(`${launch.execPath} ${launch.args.join(' ')} did not start`);
    return ok(child.pid);
  } catch (error) {
    return fail(`restarting the gateway failed: ${errorText(error)}`);
  }
}

/** The environment to start the gateway with: its own (from /proc), else the updater's. */
export async function gatewayEnvironment(pid: number): Promise<NodeJS.ProcessEnv> {
  return environmentOf(pid).catch(() => ({ ...process.env }));
}

/**
 * The watch: the gateway must become ready reporting `commit`, then stay ready for `watchMs`
 * (three failed looks in a row, or its process gone, end it).
 */
export async function watchGateway(options: {
  configFile: string;
  commit: string;
  pid: () => Promise<number | undefined>;
  startTimeoutMs: number;
  watchMs: number;
}): Promise<Result<void>> {
  const address = await readyAddress(options.configFile);
  const gone = async () => {
    const pid = await options.pid();
    return pid === undefined || !processAlive(pid) ? 'the gateway process exited' : undefined;
  };
  const first = await options.pid();
  const ready = await waitUntilReady({
    ...address,
    commit: options.commit,
    timeoutMs: options.startTimeoutMs,
    exited: () =>
      first === undefined || !processAlive(first)
        ? 'the gateway process exited before it was ready'
        : undefined,
  });
  if (!ready.ok) return fail(`the new version did not become ready: ${(await gone()) ?? ready.error}`);
  const until = Date.now() + options.watchMs;
  let misses = 0;
  while (Date.now() < until) {
    await sleep(1000);
    const exited = await gone();
    if (exited)
      return fail(
        `${exited} ${Math.round((Date.now() - (until - options.watchMs)) / 1000)} s after it was ready`,
      );
    const readiness = await readReadiness(address.port, address.host);
    misses = readiness?.ready && readiness.version?.commit === options.commit ? 0 : misses + 1;
    if (misses >= 3)
      return fail(
        `/readyz stopped answering ready with ${options.commit.slice(0, 7)} ${Math.round((Date.now() - (until - options.watchMs)) / 1000)} s after it was ready`,
      );
  }
  return ok(undefined);
}

export function gatewayLogFile(runDir: string): string {
  return path.join(runDir, 'gateway.log');
}
