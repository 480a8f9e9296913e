import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';
import { type Pm2Process, parsePm2List } from '../helpers/pm2-list.js';
import { childEnvironment, pollUntil, REPO_ROOT, runCommand } from '../helpers/process.js';
import { makeUpdateRig } from '../helpers/update-gateway.js';
import { git } from '../helpers/update-remote.js';

// issue 31 item 4 under the real pm2 (its own PM2_HOME): the gateway is a pm2 app; `update.run`
// starts the updater as a sibling pm2 app (pm2's API from the pm2 that runs the gateway), and a
// `pm2 restart` of the gateway in the middle of the update neither stops the updater nor starts a
// second run: the update finishes once, the ledger holds one run, the chat gets one note.

const APP = 'switchboard-under-test';

let dir: string;
let model: FakeModelServer;
let rig: Awaited<ReturnType<typeof makeUpdateRig>>;
let environment: NodeJS.ProcessEnv | undefined;

function pm2(...args: string[]) {
  return runCommand(process.execPath, [path.join(REPO_ROOT, 'node_modules', 'pm2', 'bin', 'pm2'), ...args], {
    cwd: dir,
    env: environment,
  });
}

async function pm2List(): Promise<Pm2Process[]> {
  return parsePm2List((await pm2('jlist')).stdout);
}

const gatewayApp = async () => (await pm2List()).find((app) => app.name === APP);

beforeAll(async () => {
  dir = await makeTempDir('switchboard-update-pm2-');
  model = await startFakeOpenAIServer();
  rig = await makeUpdateRig(dir, { modelUrl: model.url, watchMs: 5000 });
  environment = childEnvironment({ PM2_HOME: path.join(dir, 'pm2-home') });
  const ecosystem = path.join(dir, 'ecosystem.json');
  await writeFile(
    ecosystem,
    JSON.stringify({
      apps: [
        {
          name: APP,
          script: path.join(rig.world.checkout, 'dist', 'main.js'),
          args: ['start', '--config', rig.configPath],
          cwd: rig.world.checkout,
          exec_mode: 'fork',
          kill_timeout: 20_000,
        },
      ],
    }),
  );
  await pm2('start', ecosystem);
  await pollUntil('the gateway under pm2 to be ready', async () => (await rig.readyz()).ready, {
    timeoutMs: 90_000,
  });
}, 150_000);

afterAll(async () => {
  if (environment) await pm2('kill').catch((error: unknown) => console.error(error));
  await model?.close();
  if (dir) await removeDir(dir);
});

describe('update.run under pm2 (issue 31)', { timeout: 400_000 }, () => {
  it('the updater is a sibling pm2 app; a pm2 restart of the gateway mid-update neither loses nor doubles it', async () => {
    const target = await rig.world.push(rig.world.base, 'a commit to update to under pm2', {
      'docs/update-test.md': 'the pm2 test\n',
    });
    const before = await gatewayApp();
    const runId = await rig.askForUpdate();
    await rig.waitForPhase(runId, 'build');
    const updater = (await pm2List()).find((app) => app.name === `switchboard-update-${runId}`);
    expect(updater?.pm2_env.status).toBe('online');

    await pm2('restart', APP);
    const restarted = await pollUntil('the gateway restarted by pm2', async () => {
      const app = await gatewayApp();
      return app && app.pid !== before?.pid && app.pm2_env.status === 'online' && app;
    });
    // pm2 restarted the gateway, not the updater: it is the same process, still going.
    const still = (await pm2List()).find((app) => app.name === `switchboard-update-${runId}`);
    expect({ pid: still?.pid, status: still?.pm2_env.status }).toEqual({
      pid: updater?.pid,
      status: 'online',
    });

    const run = await rig.outcome(runId);
    expect({ phase: run.phase, cause: run.cause }).toEqual({ phase: 'done', cause: undefined });
    expect(run.gateway.launch.supervisor).toBe('pm2');
    expect((await rig.readyz()).version?.commit).toBe(target);
    expect(await git(rig.world.checkout, 'rev-parse', 'HEAD')).toBe(target);
    // One run in the ledger (none before it, none begun again), the gateway restarted by the update too.
    const ledger = await rig.readLedger();
    expect({ run: ledger.run?.id, history: ledger.history.map((entry) => entry.id) }).toEqual({
      run: runId,
      history: [],
    });
    const after = await gatewayApp();
    expect(after?.pid).not.toBe(restarted.pid);
    const note = `Gateway updated to ${target.slice(0, 7)} (from ${rig.world.base.slice(0, 7)}).`;
    await pollUntil('the outcome note', async () => (await rig.notes()).includes(note));
    expect((await rig.notes()).filter((text) => text === note)).toHaveLength(1);
    // The updater app ends by itself (just after it wrote the note), pm2 does not start it again,
    // and the gateway then removes it from pm2's list.
    const restarts: number[] = [];
    await pollUntil('the ended updater app to leave pm2 ls', async () => {
      const app = (await pm2List()).find((entry) => entry.name === `switchboard-update-${runId}`);
      if (app) restarts.push(app.pm2_env.restart_time);
      return app === undefined;
    });
    expect(restarts.every((count) => count === 0)).toBe(true);
  });
});
