import { spawn } from 'node:child_process';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { errorText, fail, ok, type Result } from '../base/errors/index.js';
import { type Pm2Installation, withPm2 } from './pm2.js';
import type { UpdateRun } from './types.js';

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
    const name = `switchboard-update-${options.run.id}`;
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
