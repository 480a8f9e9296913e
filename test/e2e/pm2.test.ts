import { copyFile, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesContaining, listModes, makeFreshClone } from '../helpers/fresh-clone.js';
import { freePort, makeTempDir, removeDir } from '../helpers/machine.js';
import { findPm2App, type Pm2Process } from '../helpers/pm2-list.js';
import {
  childEnvironment,
  countMessages,
  isReadyLine,
  pollUntil,
  readLogFile,
  request,
  runCli,
  runCommand,
  writeConfig,
} from '../helpers/process.js';

// The deployment as documented, on a fresh clone: the files git knows, `npm install`'s prepare
// step (the build), then the real pm2 running the clone's ecosystem.config.cjs with the clone as
// its workdir and config/gateway.jsonc as its config, as a new user would. pm2 gets its own
// PM2_HOME, so the test neither sees nor disturbs a pm2 daemon already on the machine. The pm2
// daemon is started first with the common umask 022, as an already running daemon would be: the
// privacy of data/ must not depend on how pm2 was started. The tests share one gateway and run
// in order: start, privacy, restart, stop, then a config that cannot start.

const APP = 'switchboard';

/** What this file reads of an app in `pm2 jlist`, its log files too. */
interface Pm2AppWithLogs extends Pm2Process {
  pm2_env: Pm2Process['pm2_env'] & { pm_out_log_path: string; pm_err_log_path: string };
}

let dir: string;
let clone: string;
let pm2Home: string;
let environment: NodeJS.ProcessEnv;
let port: number;
let baseUrl: string;
let dataDir: string;
let outLog: string;
let errorLog: string;

function pm2(...args: string[]) {
  const PM2 = path.join(clone, 'node_modules', 'pm2', 'bin', 'pm2');
  return runCommand('/bin/sh', ['-c', 'umask 022 && exec "$0" "$@"', process.execPath, PM2, ...args], {
    cwd: clone,
    env: environment,
  });
}

async function describeApp(): Promise<Pm2AppWithLogs> {
  return findPm2App<Pm2AppWithLogs>((await pm2('jlist')).stdout, APP);
}

async function httpToken(): Promise<string> {
  return (await readFile(path.join(dataDir, 'http-token'), 'utf8')).trim();
}

beforeAll(async () => {
  dir = await makeTempDir('switchboard-pm2-');
  clone = await makeFreshClone(path.join(dir, 'clone'));
  pm2Home = path.join(dir, 'pm2-home');
  port = await freePort();
  // The default config path, relative to the workdir; no http.token, so the first start makes one.
  await writeConfig(path.join(clone, 'config'), { http: { port } }, 'gateway.jsonc');
  environment = childEnvironment({ PM2_HOME: pm2Home });
  baseUrl = `http://127.0.0.1:${port}`;
  dataDir = path.join(clone, 'data');
  outLog = path.join(dataDir, 'logs', 'switchboard.out.log');
  errorLog = path.join(dataDir, 'logs', 'switchboard.error.log');
  await pm2('ping');
  await pm2('start', 'ecosystem.config.cjs');
}, 240_000);

afterAll(async () => {
  // Always end this PM2_HOME's daemon (and the gateway under it), even when a test failed.
  if (environment) await pm2('kill').catch((error: unknown) => console.error(error));
  if (dir) await removeDir(dir);
});

// pm2's own commands take seconds each on a busy 2-core machine; the default 30 s is too tight beside the
// other process tests.
describe('pm2 with ecosystem.config.cjs', { timeout: 120_000 }, () => {
  it('starts the gateway online and ready, with its logs and state in the workdir', async () => {
    const app = await describeApp();
    // With wait_ready, pm2 reports online only after process.send('ready') (or listen_timeout).
    expect(app.pm2_env.status).toBe('online');
    expect(app.pm2_env.pm_out_log_path).toBe(outLog);
    const ready = await pollUntil('a ready line in the pm2 log', async () =>
      (await readLogFile(outLog)).find(isReadyLine),
    );
    expect(ready).toMatchObject({ pid: app.pid, url: baseUrl, restarts: 0 });
    const health = await fetch(`${baseUrl}/healthz`);
    expect(await health.json()).toMatchObject({ status: 'ok' });
    const lines = await readLogFile(outLog);
    // The default stateDir resolved against the workdir: the clone's data/, next to the pm2 logs.
    expect(String(lines.find((line) => line.msg === 'gateway started')?.store)).toContain(dataDir);
  });

  it("switchboard logs reads pm2's out log when log.file is not set, formatted", async () => {
    const result = await runCli(
      ['logs', '--config', path.join(clone, 'config', 'gateway.jsonc'), '-n', '50'],
      {
        env: childEnvironment({ SWITCHBOARD_WORKDIR: clone }),
      },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`pm2's out log (log.file is not set): ${outLog}`);
    expect(result.stdout).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}Z INFO {2}Switchboard ready/m);
    expect(result.stdout).not.toContain('{"level"');
  });

  it('keeps the state private: every directory under data/ is 0700 and every file 0600, pm2 logs too', async () => {
    const modes = await listModes(dataDir);
    // The store, the token and pm2's own log files (which the daemon, umask 022, opens) are there.
    expect(Object.keys(modes)).toEqual(
      expect.arrayContaining(['switchboard.sqlite', 'http-token', 'logs/', 'logs/switchboard.out.log']),
    );
    const exposed = Object.entries(modes).filter(
      ([entry, mode]) => mode !== (entry.endsWith('/') ? '700' : '600'),
    );
    expect(exposed).toEqual([]);
  });

  it('never writes the generated token to a log file; the ready line says where the token is', async () => {
    const token = await httpToken();
    expect(token.length).toBeGreaterThan(20);
    expect(await filesContaining(path.join(dataDir, 'logs'), token)).toEqual([]);
    expect(await filesContaining(pm2Home, token)).toEqual([]);
    const ready = (await readLogFile(outLog)).find(isReadyLine);
    expect(ready?.msg).toContain(path.join(dataDir, 'http-token'));
  });

  it('restarts in-process on pm2 sendSignal SIGUSR1: same pid, new ready line', async () => {
    const before = await describeApp();
    const readyBefore = (await readLogFile(outLog)).filter(isReadyLine).length;

    await pm2('sendSignal', 'SIGUSR1', APP);
    const ready = await pollUntil('a new ready line after SIGUSR1', async () => {
      const readyLines = (await readLogFile(outLog)).filter(isReadyLine);
      return readyLines.length > readyBefore ? readyLines.at(-1) : undefined;
    });
    expect(ready).toMatchObject({ pid: before.pid, restarts: 1 });

    const after = await describeApp();
    // pm2 did not restart anything: same pid, its restart counter untouched.
    expect(after).toMatchObject({ pid: before.pid, pm2_env: { status: 'online', restart_time: 0 } });
    const answer = await pollUntil('an answer to /whoami', async () => {
      const response = await request<{ replies: { text: string }[] }>(
        baseUrl,
        'POST',
        '/api/webchat/messages',
        { text: '/whoami' },
        await httpToken(),
      );
      return response.status === 200 && response.body;
    });
    expect(answer.replies[0]?.text).toContain('webchat:local');
    // Node reserves SIGUSR1 for its inspector; our handler must replace that, not open a debug port.
    expect(await readFile(errorLog, 'utf8')).not.toContain('Debugger listening');
  });

  it('stops gracefully on pm2 stop (SIGINT), without a SIGKILL', async () => {
    const { pid } = await describeApp();
    await pm2('stop', APP);

    expect((await describeApp()).pm2_env.status).toBe('stopped');
    // pm2 copies the output to the file asynchronously, so the last lines may still be on the way.
    const lines = await pollUntil('the stopped line', async () => {
      const all = await readLogFile(outLog);
      return countMessages(all, 'stopped') > 0 ? all : undefined;
    });
    expect(lines.find((line) => line.msg === 'stopping')).toMatchObject({ pid, signal: 'SIGINT' });
    // The daemon's own log records how the process ended; it too is written asynchronously.
    const daemonLog = await pollUntil('the exit in the pm2 daemon log', async () => {
      const text = await readFile(path.join(pm2Home, 'pm2.log'), 'utf8');
      return text.includes(`App [${APP}:0] exited`) ? text : undefined;
    });
    expect(daemonLog).toContain(`App [${APP}:0] exited with code [0]`);
    expect(daemonLog).not.toContain('SIGKILL');
    await expect(fetch(`${baseUrl}/healthz`)).rejects.toThrow();
  });

  it('gives up on a config that cannot start: a few restarts, the gateway waiting longer before each exit, then pm2 gives up, the reason in the error log', async () => {
    // A store that refuses connections: the config validates, the start fails every time.
    await writeConfig(
      path.join(clone, 'config'),
      { http: { port }, store: { url: 'redis://127.0.0.1:1' } },
      'gateway.jsonc',
    );
    await pm2('delete', APP);
    const errorsBefore = (await readFile(errorLog, 'utf8')).length;
    const daemonLogBefore = (await readFile(path.join(pm2Home, 'pm2.log'), 'utf8')).length;
    await pm2('start', 'ecosystem.config.cjs');

    // pm2 writes this when it stops restarting (unstable restarts: each start ended within min_uptime).
    const daemonLog = await pollUntil(
      'pm2 to give up restarting',
      async () => {
        const text = (await readFile(path.join(pm2Home, 'pm2.log'), 'utf8')).slice(daemonLogBefore);
        return text.includes('too many unstable restarts') ? text : undefined;
      },
      { timeoutMs: 170_000, intervalMs: 500 },
    );
    const app = await describeApp();
    // Not running and not reported online: pm2 lists it errored (test/e2e/pm2-failed-start.test.ts
    // watches that it never shows online meanwhile).
    expect(app.pid).toBe(0);
    expect(app.pm2_env.status).not.toBe('online');
    expect(app.pm2_env.status).toBe('errored');
    // max_restarts in ecosystem.config.cjs; before, pm2 went on restarting (still at it after 120 s).
    expect(app.pm2_env.restart_time).toBeLessThanOrEqual(5);
    // pm2 restarts at once (no exp_backoff_restart_delay, which made pm2 list a dead gateway online):
    // the gateway itself waits longer after each failed start before it exits.
    expect(daemonLog).not.toMatch(/will restart in \d+ms/);
    // The reason, in plain words, where `pm2 logs` shows errors.
    const errors = await pollUntil('the reason in the error log', async () => {
      const text = (await readFile(errorLog, 'utf8')).slice(errorsBefore);
      return text.includes('cannot connect to redis://127.0.0.1:1') ? text : undefined;
    });
    const delays = [...errors.matchAll(/waiting ([\d.]+) s before exiting/g)].map((match) =>
      Number(match[1]),
    );
    expect(delays.length).toBeGreaterThanOrEqual(2);
    expect(delays.at(-1)).toBeGreaterThan(delays[0] ?? 0);
    // Named by its JSON path (the start check's words), so the operator knows what to fix.
    expect(errors).toContain('/store/url');
  }, 200_000);

  it('without a build, pm2 start fails and names the step to run', async () => {
    // The ecosystem file alone, as in a checkout where `npm install` has not run (no dist/).
    const bare = path.join(dir, 'bare');
    await mkdir(bare);
    await copyFile(path.join(clone, 'ecosystem.config.cjs'), path.join(bare, 'ecosystem.config.cjs'));
    const PM2 = path.join(clone, 'node_modules', 'pm2', 'bin', 'pm2');
    const failure = await runCommand(process.execPath, [PM2, 'start', 'ecosystem.config.cjs'], {
      cwd: bare,
      env: environment,
    }).then(
      () => undefined,
      (error: Error) => error.message,
    );
    expect(failure).toContain(`${path.join(bare, 'dist/main.js')} is missing: run \`npm install\``);
  });
});
