import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort, makeTempDir, removeDir } from '../helpers/machine.js';
import {
  killRunningChildren,
  pollUntil,
  REPO_ROOT,
  request,
  runCli,
  spawnGateway,
  writeConfig,
} from '../helpers/process.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';

// `switchboard doctor` (the built CLI) on what surrounds the config: a Redis store that answers
// without a password is a warning, a password in store.url is never printed, and a gateway
// already running on the config's address is asked (with the token file) about its toolpacks'
// scheduler hooks.

const PASSWORD = 'doctor-redis-secret-42';
const FAILING = path.join(REPO_ROOT, 'test/fixtures/controller-toolpacks/failing-tick');

let dir: string;
let open: RedisServer;
let locked: RedisServer;

beforeAll(async () => {
  dir = await makeTempDir('switchboard-doctor-deployment-');
  [open, locked] = await Promise.all([startRedisServer(), startRedisServer({ requirepass: PASSWORD })]);
});

afterEach(async () => {
  await killRunningChildren();
});

afterAll(async () => {
  await killRunningChildren();
  await Promise.all([open?.stop(), locked?.stop()]);
  await removeDir(dir);
});

async function doctor(name: string, config: Record<string, unknown>) {
  const file = await writeConfig(
    dir,
    { stateDir: path.join(dir, `${name}-state`), ...config },
    `${name}.jsonc`,
  );
  const result = await runCli(['doctor', '--config', file], { timeoutMs: 40_000 });
  return { ...result, output: result.stdout + result.stderr };
}

describe('doctor and the Redis password', () => {
  it('warns when the Redis store accepts connections without a password', async () => {
    const result = await doctor('open-redis', { store: { url: open.url } });
    expect(result.stderr).toContain(
      `warning: store: the Redis server at ${open.url} accepts connections without a password`,
    );
  });

  it('does not warn for a Redis that needs one, and never prints the password', async () => {
    const result = await doctor('locked-redis', {
      store: { url: `redis://:${PASSWORD}@127.0.0.1:${locked.port}` },
    });
    expect(result.output).not.toContain('without a password');
    expect(result.stdout).toContain(`store: ${locked.url}`);
    expect(result.output).not.toContain(PASSWORD);
  }, 60_000);
});

describe('doctor and a running gateway', () => {
  it('shows the failing scheduler hook of the gateway running on this config, asked with the token file', async () => {
    const port = await freePort();
    const stateDir = path.join(dir, 'running-state');
    const config = {
      stateDir,
      http: { port },
      tools: { toolpacks: ['core', { path: FAILING, id: 'failing-tick' }] },
      scheduler: { tickMs: 50 },
    };
    const file = await writeConfig(dir, config, 'running.jsonc');
    const gateway = spawnGateway(['start', '--config', file]);
    const url = await gateway.waitForReady();
    const token = (await readFile(path.join(stateDir, 'http-token'), 'utf8')).trim();
    // The fixture's error changes after its third call; wait for the second error to be the last.
    await pollUntil('the hook to have failed four times', async () => {
      const { body } = await request<{ schedulerHooks: { failures: number }[] }>(
        url,
        'GET',
        '/api/toolpacks',
        undefined,
        token,
      );
      return body.schedulerHooks.some((hook) => hook.failures >= 4);
    });

    const running = await runCli(['doctor', '--config', file], { timeoutMs: 40_000 });
    expect(running.stderr).toContain(
      `warning: gateway at http://127.0.0.1:${port}: the failing-tick scheduler hook is failing`,
    );
    expect(running.stderr).toContain('plan.db is locked');
    // store.db is provided (issue 35): no toolpack reaches for an API Switchboard lacks.
    expect(running.stderr).not.toContain('which Switchboard does not provide');

    gateway.child.kill('SIGTERM');
    await gateway.exited;
    const stopped = await runCli(['doctor', '--config', file], { timeoutMs: 40_000 });
    expect(stopped.stdout).toContain(
      `gateway: none running at http://127.0.0.1:${port}; scheduler hooks not checked`,
    );
  }, 120_000);
});
