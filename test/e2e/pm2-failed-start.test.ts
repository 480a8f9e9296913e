import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, makeTempDir, removeDir } from '../helpers/machine.js';
import { findPm2App, type Pm2Process } from '../helpers/pm2-list.js';
import { childEnvironment, pollUntil, runCommand, writeConfig } from '../helpers/process.js';

// Issue 33 item 2: `pm2 ls` never shows `online` for a gateway that is not serving. The real pm2
// (its own PM2_HOME) runs this checkout's ecosystem.config.cjs and dist/ (`npm run build` first)
// with a config whose HTTP token is a `${NAME}` the env file lacks: every start fails. pm2
// restarts it until it gives up; over that whole window and past pm2's listen_timeout after it,
// `pm2 jlist` must never say online (pm2 6 with exp_backoff_restart_delay did: `waiting restart`,
// then a stale listen_timeout timer marked the dead app online with pid 0). Then the variable goes
// into the env file, `pm2 restart`, and the gateway is online with its own pid and ready.

const APP = 'switchboard';
const REPO = path.resolve(import.meta.dirname, '../..');
/** ecosystem.config.cjs's listen_timeout, and a margin for a loaded machine. */
const LISTEN_TIMEOUT_MS = 20_000;
const MARGIN_MS = 3000;

let dir: string;
let environment: NodeJS.ProcessEnv | undefined;
let port: number;

function pm2(...args: string[]) {
  return runCommand(process.execPath, [path.join(REPO, 'node_modules', 'pm2', 'bin', 'pm2'), ...args], {
    cwd: dir,
    env: environment,
  });
}

async function describeApp(): Promise<Pm2Process> {
  return findPm2App((await pm2('jlist')).stdout, APP);
}

beforeAll(async () => {
  dir = await makeTempDir('switchboard-pm2-failed-start-');
  port = await freePort();
  await mkdir(path.join(dir, 'config'), { recursive: true });
  await writeConfig(path.join(dir, 'config'), { http: { port, token: '${SB_PM2_TEST_TOKEN}' } });
  await mkdir(path.join(dir, 'data'), { recursive: true, mode: 0o700 });
  await writeFile(path.join(dir, 'data', '.env'), '# no token yet\n', { mode: 0o600 });
  environment = childEnvironment({ PM2_HOME: path.join(dir, 'pm2-home'), SWITCHBOARD_WORKDIR: dir });
}, 60_000);

afterAll(async () => {
  if (environment) await pm2('kill').catch((error: unknown) => console.error(error));
  if (dir) await removeDir(dir);
});

describe('pm2 and a gateway that cannot start', { timeout: 150_000 }, () => {
  it('is never listed online while it does not serve; fixed env file + pm2 restart → online and ready', async () => {
    const daemonLog = path.join(dir, 'pm2-home', 'pm2.log');
    await pm2('start', path.join(REPO, 'ecosystem.config.cjs'));
    const seen: { status: string; pid: number; at: number }[] = [];
    const look = async () => {
      const app = await describeApp();
      seen.push({ status: app.pm2_env.status, pid: app.pid, at: Date.now() });
      return app;
    };
    // Until pm2 gives up (unstable restarts), looking all the while.
    const gaveUpAt = await pollUntil(
      'pm2 to give up restarting',
      async () => {
        await look();
        const text = await readFile(daemonLog, 'utf8').catch(() => '');
        return text.includes('too many unstable restarts') ? Date.now() : undefined;
      },
      { timeoutMs: 100_000, intervalMs: 200 },
    );
    // pm2's listen_timeout timer of the last start fires at most listen_timeout after it: look past it.
    while (Date.now() < gaveUpAt + LISTEN_TIMEOUT_MS + MARGIN_MS) await look();
    expect(seen.filter((sample) => sample.status === 'online')).toEqual([]);
    expect(seen.at(-1)).toMatchObject({ status: 'errored', pid: 0 });

    // The gateway paced its own restarts (pm2 has no backoff): each failed start waited, logged.
    const errors = await readFile(path.join(dir, 'data', 'logs', 'switchboard.error.log'), 'utf8');
    expect(errors).toContain('SB_PM2_TEST_TOKEN is not set');
    const pauses = [...errors.matchAll(/waiting ([\d.]+) s before exiting/g)].map((match) =>
      Number(match[1]),
    );
    expect(pauses.length).toBeGreaterThanOrEqual(3);
    expect(pauses.at(-1)).toBeGreaterThan(pauses[0] ?? 0);

    await writeFile(path.join(dir, 'data', '.env'), 'SB_PM2_TEST_TOKEN=pm2-failed-start-token-0123456789\n');
    await pm2('restart', APP);
    const ready = await pollUntil(
      'ready on /readyz',
      async () => {
        const response = await fetch(`http://127.0.0.1:${port}/readyz`);
        return response.status === 200 && ((await response.json()) as { ready: boolean });
      },
      { timeoutMs: 40_000, intervalMs: 250 },
    );
    expect(ready).toMatchObject({ ready: true, mode: 'normal' });
    const app = await pollUntil('pm2 to list the gateway online', async () => {
      const described = await describeApp();
      return described.pm2_env.status === 'online' && described;
    });
    expect(app.pid).toBeGreaterThan(0);
    // The pid pm2 lists is the one serving: the gateway writes it at ready.
    const recorded = await pollUntil('the pid file', async () =>
      Number((await readFile(path.join(dir, 'data', 'gateway.pid'), 'utf8')).trim()),
    );
    expect(recorded).toBe(app.pid);
  });
});
