import { spawn } from 'node:child_process';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { errorText, fail, ok, type Result } from '../base/errors/index.js';
import { type Pm2Installation, withPm2 } from './pm2.js';
import type { UpdateRun } from './types.js';

/** The pm2 app of a run's updater (under pm2). */
const updaterAppName = (run: UpdateRun) => `switchboard-update-${run.id}`;

/** The updater's command line: `switchboard update apply <run> --state-dir <dir>`. */
function updaterArgs(run: UpdateRun): string[] {
  return ['update', 'apply', run.id, '--state-dir', run.stateDir];
}

/**
 * This process's environment without what pm2 put in it for the gateway's app: pm2 gives an app
 * its whole description as variables (`pm_id`, `name`, `args`, `exec_mode`, …), and an app started
 * with them would take them as its own options (the updater ran with the gateway's `args`).
 * `appKeys`: the keys of the gateway's pm2 description that are not its own environment.
 */
function updaterEnvironment(appKeys: Iterable<string> = []): NodeJS.ProcessEnv {
  const environment = { ...process.env };
  for (const key of Object.keys(environment))
    if (key.startsWith('pm_') || key === 'name' || key === 'NODE_APP_INSTANCE' || key === 'PM2_USAGE')
      delete environment[key];
  for (const key of appKeys) delete environment[key];
  return environment;
}

/** The keys pm2 added to an app's environment: its description's, less the app's own `env`. */
function pm2AppKeys(description: { pm2_env?: object } | undefined): string[] {
  const pm2Environment = (description?.pm2_env ?? {}) as { env?: Record<string, unknown> };
  const own = new Set(Object.keys(pm2Environment.env ?? {}));
  return Object.keys(pm2Environment).filter((key) => !own.has(key));
}

/**
 * Starts the updater where stopping the gateway cannot reach it: under pm2 a sibling pm2 app
 * (pm2's tree-kill signals every descendant of the gateway, detached or not), started through
 * pm2's API, not restarted when it ends; elsewhere a detached process in its own session
 * (setsid), its output in `<runDir>/updater.log`. Resolves to its pid.
 */
export async function launchUpdater(options: { run: UpdateRun; main: string }): Promise<Result<number>> {
  const { run } = options;
  try {
    const { launch } = run.gateway;
    if (launch.supervisor === 'pm2') return await launchPm2Sibling(options, launch);
    const log = await open(path.join(run.runDir, 'updater.log'), 'a', 0o600);
    const child = spawn(process.execPath, [options.main, ...updaterArgs(run)], {
      cwd: run.cwd,
      env: updaterEnvironment(),
      detached: true,
      stdio: ['ignore', log.fd, log.fd],
    });
    await log.close();
    child.unref();
    return child.pid === undefined
      ? fail(`${process.execPath} ${options.main} did not start`)
      : ok(child.pid);
  } catch (error) {
    return fail(errorText(error));
  }
}

async function launchPm2Sibling(
  options: { run: UpdateRun; main: string },
  launch: { pmId: number; pm2: Pm2Installation },
): Promise<Result<number>> {
  return withPm2(launch.pm2, async (pm2) => {
    const name = updaterAppName(options.run);
    const gateway = await new Promise<{ pm2_env?: object }[]>((resolve, reject) =>
      pm2.describe(launch.pmId, (error, list) => (error ? reject(error) : resolve(list))),
    );
    const started = await new Promise<{ pid?: number; process?: { pid?: number } }[]>((resolve, reject) =>
      pm2.start(
        {
          name,
          script: options.main,
          args: updaterArgs(options.run),
          cwd: options.run.cwd,
          autorestart: false,
          env: updaterEnvironment(pm2AppKeys(gateway[0])) as Record<string, string>,
          output: path.join(options.run.runDir, 'updater.log'),
          error: path.join(options.run.runDir, 'updater.log'),
        },
        (error, apps) =>
          error ? reject(error) : resolve(apps as { pid?: number; process?: { pid?: number } }[]),
      ),
    );
    const pid = started[0]?.process?.pid ?? started[0]?.pid;
    return pid ? ok(pid) : fail(`pm2 started ${name} without a pid`);
  });
}

/**
 * Removes an ended run's updater app from pm2 (pm2 keeps a stopped app in `pm2 ls` for ever):
 * once it has stopped, waiting up to `waitMs` for it to (it ends just after it writes its note).
 * An app still running after that, or a run not under pm2, is left alone. Resolves to whether it
 * was removed.
 */
export async function removeEndedUpdater(run: UpdateRun, waitMs = 0): Promise<boolean> {
  const { launch } = run.gateway;
  // Only from a process pm2 runs: pm2's API started from elsewhere would spawn a daemon of its own.
  if (launch.supervisor !== 'pm2' || process.env.pm_id === undefined) return false;
  const name = updaterAppName(run);
  return withPm2(launch.pm2, async (pm2) => {
    const status = () =>
      new Promise<string | undefined>((resolve, reject) =>
        pm2.describe(name, (error, list) => (error ? reject(error) : resolve(list[0]?.pm2_env?.status))),
      );
    const deadline = Date.now() + waitMs;
    let now = await status();
    while (now === 'online' || now === 'stopping' || now === 'launching') {
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 250).unref());
      now = await status();
    }
    if (now === undefined) return false;
    await new Promise<void>((resolve, reject) =>
      pm2.delete(name, (error) => (error ? reject(error) : resolve())),
    );
    return true;
  });
}
