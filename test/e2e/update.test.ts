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
  runCommand,
  sendMessage,
  spawnGateway,
} from '../helpers/process.js';
import { killDetachedGateway, makeUpdateRig } from '../helpers/update-gateway.js';
import { git } from '../helpers/update-remote.js';

// issue 31: the real gateway updated from a local bare repository. The remote is this repository's
// HEAD; the checkout the gateway runs from is a clone of it with this build's dist/ (its tsc
// incremental record makes each fixture's build compile only the changed files) and node_modules
// linked (the lockfile never changes here). The tests run in order on one checkout: the update to
// two new commits, then fixtures on top of it that each must fail or roll back.

let dir: string;
let model: FakeModelServer;
let rig: Awaited<ReturnType<typeof makeUpdateRig>>;
let world: Awaited<ReturnType<typeof makeUpdateRig>>['world'];
let configPath: string;
let url: string;
let gateway: GatewayProcess;
/** The version the gateway runs after the successful update: the fixtures build on it. */
let updated: string;

const WATCH_MS = 25_000;

const readLedger = () => rig.readLedger();
const readyz = () => rig.readyz();
const notes = () => rig.notes();
const outcome = (runId?: string) => rig.outcome(runId);
const askForUpdate = () => rig.askForUpdate();

beforeAll(async () => {
  dir = await makeTempDir('switchboard-update-');
  model = await startFakeOpenAIServer();
  rig = await makeUpdateRig(dir, { modelUrl: model.url, watchMs: WATCH_MS });
  ({ world, configPath, url } = rig);
  gateway = spawnGateway(['start', '--config', configPath], {
    cwd: world.checkout,
    main: path.join(world.checkout, 'dist', 'main.js'),
    env: childEnvironment(),
  });
  await gateway.waitForReady();
}, 120_000);

afterAll(async () => {
  if (rig) await killDetachedGateway(rig.stateDir);
  await killRunningChildren();
  await model?.close();
  await removeDir(dir);
});

describe('update from a git remote (issue 31)', { timeout: 420_000 }, () => {
  it('update check lists the commits between, and that the lockfile and schema did not change', async () => {
    await world.push(world.base, 'first new commit for the update test', {
      'docs/update-test.md': 'the first commit of the update test\n',
    });
    await world.push(await git(world.work, 'rev-parse', 'HEAD'), 'second new commit for the update test', {
      'docs/update-test.md': 'the second commit of the update test\n',
    });
    const { stdout } = await runCommand(
      process.execPath,
      [path.join(world.checkout, 'dist', 'main.js'), 'update', 'check', '--config', configPath],
      { cwd: world.checkout, env: childEnvironment() },
    );
    expect(stdout).toContain(`Update available from origin main: ${world.base.slice(0, 7)} → `);
    expect(stdout).toContain('first new commit for the update test');
    expect(stdout).toContain('second new commit for the update test');
    expect(stdout).toContain('package-lock.json unchanged (node_modules reused); config schema unchanged.');
  });

  it('update run proves, switches and restarts: the new version answers and the note names both', async () => {
    const target = await git(world.work, 'rev-parse', 'HEAD');
    expect((await readyz()).version?.commit).toBe(world.base);
    const runId = await askForUpdate();
    // A second run while this one runs is refused.
    const second = await sendMessage(url, '/update run');
    expect(second.body.replies[0]?.text).toMatch(/^Update: an update is already running \(run /);
    const run = await outcome(runId);
    expect({ phase: run.phase, cause: run.cause }).toEqual({ phase: 'done', cause: undefined });
    // The config validates against the target: the migration step records none.
    expect(run.migration).toEqual({ outcome: 'none' });
    expect((await readyz()).version?.commit).toBe(target);
    expect(await git(world.checkout, 'rev-parse', 'HEAD')).toBe(target);
    const note = `Gateway updated to ${target.slice(0, 7)} (from ${world.base.slice(0, 7)}).`;
    await pollUntil('the outcome note', async () => (await notes()).includes(note));
    expect((await notes()).filter((text) => text === note)).toHaveLength(1);
    const whoami = await sendMessage(url, '/whoami');
    expect(whoami.body.replies[0]?.text).toMatch(/^You are/);
    updated = target;
  });

  it('a commit that does not build: failed at build, the running version untouched, the chat told why', async () => {
    const pid = (await readLedger()).run?.gateway.pid;
    const broken = await world.push(updated, 'a commit that does not build', {
      // A file nothing imports: tsc checks it alone, and fails.
      'src/update/broken-on-purpose.ts': "export const broken: number = 'not a number';\n",
    });
    const run = await outcome(await askForUpdate());
    expect(run.phase).toBe('failed');
    expect(run.cause?.phase).toBe('build');
    expect(run.cause?.reason).toContain('npm run build');
    expect((await readyz()).version?.commit).toBe(updated);
    expect((await readLedger()).run?.gateway.pid).toBe(pid);
    const note = await pollUntil('the failure note', async () =>
      (await notes()).find((text) => text.startsWith(`Update to ${broken.slice(0, 7)} failed at build:`)),
    );
    expect(note).toContain(`Still running ${updated.slice(0, 7)}; nothing was changed.`);
  });

  it('a commit that exits at start: the canary fails, the running version untouched', async () => {
    const exits = await world.push(updated, 'a commit that exits at start', {
      'src/main.ts': (old) =>
        old.replace(
          'holdYoungGeneration();',
          "if (process.argv[2] === 'start') process.exit(3);\nholdYoungGeneration();",
        ),
    });
    const run = await outcome(await askForUpdate());
    expect({ phase: run.phase, at: run.cause?.phase }).toEqual({ phase: 'failed', at: 'canary' });
    expect(run.cause?.reason).toContain('the canary exited (code 3)');
    expect((await readyz()).version?.commit).toBe(updated);
    await pollUntil('the failure note', async () =>
      (await notes()).some((text) => text.startsWith(`Update to ${exits.slice(0, 7)} failed at canary:`)),
    );
  });

  it('a commit whose schema refuses the current config: the update waits with the changes it needs for a second approval', async () => {
    const refuses = await world.push(updated, 'a commit whose schema refuses the config', {
      'src/base/config/schema/schema-update.ts': (old) => old.replace('maximum: 3600000,', 'maximum: 20000,'),
    });
    const runId = await askForUpdate();
    const note = await pollUntil(
      'the note asking for the config change',
      async () =>
        (await notes()).find((text) =>
          text.startsWith(`Update to ${refuses.slice(0, 7)} needs a config change:`),
        ),
      { timeoutMs: 400_000, intervalMs: 500 },
    );
    // The changes the target needs name the config path; the old version serves meanwhile.
    expect(note).toContain('watchMs');
    expect(note).toContain('/update approve');
    expect((await readLedger()).run).toMatchObject({
      id: runId,
      phase: 'migration',
      migration: { outcome: 'needed' },
    });
    expect((await readyz()).version?.commit).toBe(updated);
    // Approved without changing the config: the start check runs again and the update stops there.
    const approved = await sendMessage(url, '/update approve');
    expect(approved.body.replies[0]?.text).toMatch(/^Approved: the update to \w{7} checks the config again/);
    const run = await outcome(runId);
    expect({ phase: run.phase, at: run.cause?.phase }).toEqual({ phase: 'failed', at: 'migration' });
    expect(run.cause?.reason).toContain(
      "approved, but the new version's start check refuses the current config",
    );
    expect(run.cause?.reason).toContain('watchMs');
    expect(run.migration?.approved?.by).toBeTruthy();
    expect((await readyz()).version?.commit).toBe(updated);
    await pollUntil('the failure note', async () =>
      (await notes()).some((text) =>
        text.startsWith(`Update to ${refuses.slice(0, 7)} failed at migration:`),
      ),
    );
    // Nothing waits any more.
    expect((await sendMessage(url, '/update approve')).body.replies[0]?.text).toContain(
      'no update is waiting for the approval of a config change',
    );
  });

  it('a commit that exits 20 s after it started: switched, then rolled back by itself, and remembered', async () => {
    const dies = await world.push(updated, 'a commit that exits 20 s after its start', {
      'src/main.ts': (old) =>
        old.replace(
          'holdYoungGeneration();',
          "if (process.argv[2] === 'start') setTimeout(() => process.exit(4), 20_000).unref();\nholdYoungGeneration();",
        ),
    });
    const run = await outcome(await askForUpdate());
    expect({ phase: run.phase, at: run.cause?.phase, rollback: run.rollback?.outcome }).toEqual({
      phase: 'rolled-back',
      at: 'watch',
      rollback: 'restored',
    });
    expect((await readyz()).version?.commit).toBe(updated);
    expect(await git(world.checkout, 'rev-parse', 'HEAD')).toBe(updated);
    expect((await readLedger()).rolledBack).toContain(dies);
    const note = await pollUntil('the rollback note', async () =>
      (await notes()).find((text) => text.startsWith(`Update to ${dies.slice(0, 7)} rolled back: `)),
    );
    expect(note).toContain(`Running ${updated.slice(0, 7)} again.`);
    // Not tried again unless named.
    const again = await sendMessage(url, '/update run');
    expect(again.body.replies[0]?.text).toContain(
      'rolled back before; it is not tried again unless an owner names it',
    );
  });
});
