import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, makeTempDir, removeDir } from '../helpers/machine.js';
import {
  childEnvironment,
  countMessages,
  isReadyLine,
  PROCESS_TEST_TOKEN,
  pollUntil,
  REPO_ROOT,
  readLogFile,
  runCommand,
  sendMessage,
  writeConfig,
} from '../helpers/process.js';

// The deployment as documented: the real pm2 running the real ecosystem.config.cjs. pm2 gets
// its own PM2_HOME, so the test neither sees nor disturbs a pm2 daemon already on the machine,
// and the gateway runs in a temp workdir (SWITCHBOARD_WORKDIR), so state and logs stay there.
// The tests share one gateway and run in order: start, restart, stop.

const PM2 = path.join(REPO_ROOT, 'node_modules', 'pm2', 'bin', 'pm2');
const ECOSYSTEM = path.join(REPO_ROOT, 'ecosystem.config.cjs');
const APP = 'switchboard';

interface Pm2Process {
  name: string;
  pid: number;
  pm2_env: { status: string; restart_time: number; pm_out_log_path: string };
}

let dir: string;
let environment: NodeJS.ProcessEnv;
let baseUrl: string;
let outLog: string;

function pm2(...args: string[]) {
  return runCommand(process.execPath, [PM2, ...args], { cwd: dir, env: environment });
}

async function describeApp(): Promise<Pm2Process> {
  const { stdout } = await pm2('jlist');
  // jlist prints the list as one JSON line; a notice from pm2 itself may come before it.
  const json = stdout
    .split('\n')
    .reverse()
    .find((line) => line.startsWith('[{') || line.trim() === '[]');
  const app = (JSON.parse(json ?? '[]') as Pm2Process[]).find((entry) => entry.name === APP);
  if (!app) throw new Error(`pm2 does not list ${APP}: ${stdout}`);
  return app;
}

beforeAll(async () => {
  dir = await makeTempDir('switchboard-pm2-');
  const port = await freePort();
  // stateDir relative on purpose: it must resolve against the workdir, next to the pm2 logs.
  const configPath = await writeConfig(dir, {
    stateDir: './data',
    http: { port, token: PROCESS_TEST_TOKEN },
  });
  environment = childEnvironment({
    PM2_HOME: path.join(dir, 'pm2-home'),
    SWITCHBOARD_WORKDIR: dir,
    SWITCHBOARD_CONFIG: configPath,
  });
  baseUrl = `http://127.0.0.1:${port}`;
  outLog = path.join(dir, 'data', 'logs', 'switchboard.out.log');
  await pm2('start', ECOSYSTEM);
});

afterAll(async () => {
  // Always end this PM2_HOME's daemon (and the gateway under it), even when a test failed.
  if (environment) await pm2('kill').catch((error: unknown) => console.error(error));
  if (dir) await removeDir(dir);
});

describe('pm2 with ecosystem.config.cjs', () => {
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
    // The relative stateDir resolved against the workdir pm2 was given, not the repository.
    expect(String(lines.find((line) => line.msg === 'gateway started')?.store)).toContain(
      path.join(dir, 'data'),
    );
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
      const response = await sendMessage(baseUrl, '/whoami');
      return response.status === 200 && response.body;
    });
    expect(answer.replies[0]?.text).toContain('webchat:local');
    // Node reserves SIGUSR1 for its inspector; our handler must replace that, not open a debug port.
    const errorLog = await readFile(path.join(dir, 'data', 'logs', 'switchboard.error.log'), 'utf8');
    expect(errorLog).not.toContain('Debugger listening');
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
      const text = await readFile(path.join(dir, 'pm2-home', 'pm2.log'), 'utf8');
      return text.includes(`App [${APP}:0] exited`) ? text : undefined;
    });
    expect(daemonLog).toContain(`App [${APP}:0] exited with code [0]`);
    expect(daemonLog).not.toContain('SIGKILL');
    await expect(fetch(`${baseUrl}/healthz`)).rejects.toThrow();
  });
});
