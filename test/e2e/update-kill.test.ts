import { access, readdir, readlink } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';
import {
  childEnvironment,
  type GatewayProcess,
  killRunningChildren,
  pollUntil,
  spawnGateway,
} from '../helpers/process.js';
import { killDetachedGateway, makeUpdateRig } from '../helpers/update-gateway.js';
import { git } from '../helpers/update-remote.js';

// issue 31 item 2: the updater SIGKILLed during the build, the canary and the switch. The gateway
// that asked keeps serving the old version throughout (the restart comes after the switch); its next
// look at the ledger ends the run `interrupted`, stops what the updater left (the build's tsc, the
// canary), undoes a switch it was in the middle of, and the note names the version that runs.
// One world and one gateway for the three runs, one target commit (a docs change).

let dir: string;
let model: FakeModelServer;
let rig: Awaited<ReturnType<typeof makeUpdateRig>>;
let gateway: GatewayProcess;
let target: string;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Processes whose working directory is inside `directory` (the build's npm and tsc run in the worktree). */
async function processesIn(directory: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cwd = await readlink(`/proc/${entry}/cwd`).catch(() => '');
    if (cwd.startsWith(directory)) found.push(Number(entry));
  }
  return found;
}

/** SIGKILLs the run's updater once it is in `phase`; resolves to the run as the kill found it. */
async function killUpdaterAt(runId: string, phase: string) {
  const run = await rig.waitForPhase(runId, phase);
  process.kill(run.lease.pid, 'SIGKILL');
  return run;
}

async function expectInterrupted(runId: string, phase: string, note: string) {
  const run = await rig.outcome(runId);
  expect({ phase: run.phase, at: run.cause?.phase }).toEqual({ phase: 'interrupted', at: phase });
  expect((await rig.readyz()).version?.commit).toBe(rig.world.base);
  expect(await git(rig.world.checkout, 'rev-parse', 'HEAD')).toBe(rig.world.base);
  // The gateway that asked was never restarted.
  expect(alive(gateway.pid)).toBe(true);
  await pollUntil('the interrupted note', async () => (await rig.notes()).includes(note));
  expect((await rig.notes()).filter((text) => text === note)).toHaveLength(1);
  return run;
}

beforeAll(async () => {
  dir = await makeTempDir('switchboard-update-kill-');
  model = await startFakeOpenAIServer();
  rig = await makeUpdateRig(dir, { modelUrl: model.url, watchMs: 5000 });
  gateway = spawnGateway(['start', '--config', rig.configPath], {
    cwd: rig.world.checkout,
    main: path.join(rig.world.checkout, 'dist', 'main.js'),
    env: childEnvironment(),
  });
  await gateway.waitForReady();
  target = await rig.world.push(rig.world.base, 'a commit the updater is killed on the way to', {
    'docs/update-test.md': 'the kill test\n',
  });
}, 120_000);

afterAll(async () => {
  if (rig) await killDetachedGateway(rig.stateDir);
  await killRunningChildren();
  await model?.close();
  await removeDir(dir);
});

const interrupted = (phase: string, extra = '') =>
  `Update to ${target.slice(0, 7)} interrupted: the updater stopped during ${phase} (killed or hung)${extra}. Running ${rig.world.base.slice(0, 7)}.`;

describe('the updater SIGKILLed (issue 31)', { timeout: 300_000 }, () => {
  it('during the build: interrupted, the build stopped, the old version serving', async () => {
    const runId = await rig.askForUpdate();
    const run = await killUpdaterAt(runId, 'build');
    await expectInterrupted(runId, 'build', interrupted('build'));
    // The build's npm and tsc (the updater's process group) were stopped with it.
    const worktree = path.join(rig.stateDir, 'update', 'runs', run.id, 'build');
    await pollUntil('the build processes to end', async () => (await processesIn(worktree)).length === 0);
  });

  it('during the canary: interrupted, the canary stopped, the old version serving', async () => {
    const runId = await rig.askForUpdate();
    await rig.waitForPhase(runId, 'canary');
    const run = await pollUntil('the canary to start', async () => {
      const { run: current } = await rig.readLedger();
      return current?.canaryPid !== undefined && current;
    });
    process.kill(run.lease.pid, 'SIGKILL');
    await expectInterrupted(runId, 'canary', interrupted('canary'));
    await pollUntil('the canary to end', () => !alive(run.canaryPid as number));
  });

  it('during the switch: the switch undone, dist/ whole, the old version serving and able to start', async () => {
    const runId = await rig.askForUpdate();
    await killUpdaterAt(runId, 'switch');
    await expectInterrupted(runId, 'switch', interrupted('switch', '; the switch was undone'));
    const { checkout } = rig.world;
    await access(path.join(checkout, 'dist', 'main.js'));
    await access(path.join(checkout, 'web', 'dist', 'index.html'));
    expect((await readdir(checkout)).filter((name) => name.includes('.update-'))).toEqual([]);
    // The old version starts from what the recovery left: stop the gateway and start it again.
    gateway.child.kill('SIGTERM');
    await gateway.exited;
    gateway = spawnGateway(['start', '--config', rig.configPath], {
      cwd: checkout,
      main: path.join(checkout, 'dist', 'main.js'),
      env: childEnvironment(),
    });
    await gateway.waitForReady();
    expect((await rig.readyz()).version?.commit).toBe(rig.world.base);
  });
});
