import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, makeTempDir, removeDir } from '../helpers/machine.js';
import { findPm2App, type Pm2Process } from '../helpers/pm2-list.js';
import {
  childEnvironment,
  PROCESS_TEST_TOKEN,
  pollUntil,
  request,
  runCommand,
  writeConfig,
} from '../helpers/process.js';
import { FIXTURES_DIR } from '../helpers/toolpacks.js';

// Issue 32 §2 and §3 under the real pm2 (its own PM2_HOME) and this checkout's ecosystem file and
// dist/ (`npm run build` first): a config whose toolpack controller throws 5 s after the scheduler
// first ticks it. pm2 restarts the process; after 3 such deaths in 5 minutes the next start is safe
// mode, which pm2 keeps online; the owner rescues it from the web chat without a model.

const APP = 'switchboard';
const REPO = path.resolve(import.meta.dirname, '../..');
const DIES = path.join(FIXTURES_DIR, 'controller-toolpacks', 'dies-after-ready');

let dir: string;
let environment: NodeJS.ProcessEnv | undefined;
let baseUrl: string;
let configFile: string;

function pm2(...args: string[]) {
  return runCommand(process.execPath, [path.join(REPO, 'node_modules', 'pm2', 'bin', 'pm2'), ...args], {
    cwd: dir,
    env: environment,
  });
}

async function describeApp(): Promise<Pm2Process> {
  return findPm2App((await pm2('jlist')).stdout, APP);
}

async function say(text: string): Promise<string> {
  const sent = await request<{ replies: { text: string }[] }>(baseUrl, 'POST', '/api/webchat/messages', {
    text,
  });
  expect(sent.status).toBe(200);
  return sent.body.replies.at(-1)?.text ?? '';
}

const codeOf = (plan: string) => /^Rescue plan ([a-z2-9]{6}):/.exec(plan)?.[1] ?? '';

beforeAll(async () => {
  dir = await makeTempDir('switchboard-crash-loop-');
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  await mkdir(path.join(dir, 'config'), { recursive: true });
  configFile = await writeConfig(path.join(dir, 'config'), {
    http: { port, token: PROCESS_TEST_TOKEN },
    tools: { toolpacks: ['core', { path: DIES, id: 'dies-after-ready' }] },
  });
  environment = childEnvironment({ PM2_HOME: path.join(dir, 'pm2-home'), SWITCHBOARD_WORKDIR: dir });
  await pm2('start', path.join(REPO, 'ecosystem.config.cjs'));
}, 120_000);

afterAll(async () => {
  if (environment) await pm2('kill').catch((error: unknown) => console.error(error));
  if (dir) await removeDir(dir);
});

describe('the crash-loop breaker under pm2', { timeout: 240_000 }, () => {
  it('comes up in safe mode after 3 deaths, stays online, and the owner rescues it', async () => {
    const original = await readFile(configFile, 'utf8');
    const readyz = async () => {
      const response = await fetch(`${baseUrl}/readyz`);
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const safe = await pollUntil(
      'safe mode on /readyz',
      async () => {
        const answer = await readyz();
        return answer.body.mode === 'safe-mode' && answer;
      },
      { timeoutMs: 180_000, intervalMs: 500 },
    );
    expect(safe).toMatchObject({
      status: 503,
      body: {
        safeMode: { cause: 'crash-loop', uncleanStarts: 3 },
        reasons: [{ component: 'safe-mode', state: 'crash-loop' }],
      },
    });
    const app = await describeApp();
    expect(app.pm2_env).toMatchObject({ status: 'online', restart_time: 3 });
    // Past the 5 s after which the controller would have killed it (had it been started): pm2 keeps it.
    await new Promise((resolve) => setTimeout(resolve, 8000));
    const later = await describeApp();
    expect(later.pid).toBe(app.pid);
    expect(later.pm2_env).toMatchObject({ status: 'online', restart_time: 3 });
    expect(await readFile(configFile, 'utf8')).toBe(original);

    const status = await say('/rescue status');
    expect(status).toMatch(/^Safe mode since .*: 3 unclean starts in 5 min/);
    expect(status).toContain('dies-after-ready: the ledger is gone');

    const disable = await say('/rescue disable toolpack dies-after-ready');
    expect(await readFile(configFile, 'utf8')).toBe(original);
    expect(await say(`/rescue yes ${codeOf(disable)}`)).toMatch(/^Changed tools\.toolpacks\. Restarting/);
    expect(await readFile(configFile, 'utf8')).not.toContain('dies-after-ready');
    // The edit's restart runs in safe mode still: wait for it to serve again before leaving.
    await pollUntil(
      'the restart after the edit',
      async () =>
        (await readyz()).body.mode === 'safe-mode' && (await say('/rescue status')).startsWith('Safe mode'),
    );
    const leave = await say('/rescue leave-safe-mode');
    expect(await say(`/rescue yes ${codeOf(leave)}`)).toMatch(/^Safe mode left/);
    const back = await pollUntil(
      'normal mode on /readyz',
      async () => {
        const answer = await readyz();
        return answer.body.mode === 'normal' && answer.status === 200 && answer;
      },
      { timeoutMs: 60_000 },
    );
    expect(back.body).toMatchObject({ ready: true, mode: 'normal' });
    const after = await describeApp();
    // In-process restarts: the same process, no pm2 restart.
    expect(after.pid).toBe(app.pid);
    expect(after.pm2_env).toMatchObject({ status: 'online', restart_time: 3 });
  });
});
