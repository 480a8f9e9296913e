import { execFile, spawn } from 'node:child_process';
import { access, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ok } from '../../src/base/errors/index.js';
import {
  createUpdateLedger,
  createUpdateService,
  runUpdater,
  type UpdateRun,
} from '../../src/update/index.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';

// issue 31 item 2: an updater SIGKILLed in the middle of the switch (between moving the old build
// aside and the new one in) leaves a checkout without dist/. The next look at the ledger (the
// running gateway's follow, or its next start, or `update status`) ends the run `interrupted` and
// puts the old build and checkout back, so the gateway that still runs the old version can start
// again; the note names that version. The states below are what a kill at each point leaves.

const execute = promisify(execFile);
const git = async (cwd: string, ...args: string[]) =>
  (
    await execute('git', ['-c', 'user.name=Recovery Test', '-c', 'user.email=r@test.invalid', ...args], {
      cwd,
    })
  ).stdout.trim();

let dir: string;
let root: string;
let stateDir: string;
let from: string;
let to: string;

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

/** A pid that is no process now (a child that has exited). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid ?? 999_999;
}

async function writeBuild(dist: string, commit: string): Promise<void> {
  await mkdir(dist, { recursive: true });
  await writeFile(path.join(dist, 'main.js'), `// ${commit}\n`);
  await writeFile(path.join(dist, 'update-build.json'), JSON.stringify({ commit }));
}

beforeEach(async () => {
  dir = await makeTempDir('switchboard-update-recovery-');
  root = path.join(dir, 'checkout');
  stateDir = path.join(dir, 'state');
  await mkdir(root, { recursive: true });
  await git(root, 'init', '--quiet', '--initial-branch=main');
  await writeFile(path.join(root, '.gitignore'), 'dist/\n');
  await writeFile(path.join(root, 'a.txt'), 'one\n');
  await git(root, 'add', '.');
  await git(root, 'commit', '--quiet', '-m', 'one');
  from = await git(root, 'rev-parse', 'HEAD');
  await writeFile(path.join(root, 'a.txt'), 'two\n');
  await git(root, 'commit', '--quiet', '-am', 'two');
  to = await git(root, 'rev-parse', 'HEAD');
  await git(root, 'reset', '--quiet', '--hard', from);
  await writeBuild(path.join(root, 'dist'), from);
});

afterEach(async () => {
  await removeDir(dir);
});

/** A run at `phase` held by `leasePid`, in the state dir, from `from` to `to`. */
function runAt(phase: UpdateRun['phase'], leasePid: number): UpdateRun {
  const runDir = path.join(stateDir, 'update', 'runs', 'r1');
  const now = Date.now();
  return {
    id: 'r1',
    requestedAt: now,
    by: 'owner',
    route: { channel: 'webchat', chatId: 'local' } as UpdateRun['route'],
    root,
    configFile: path.join(dir, 'gateway.jsonc'),
    stateDir,
    cwd: dir,
    runDir,
    settings: { watchMs: 1000, startTimeoutMs: 1000, keepMs: 1000, stopTimeoutMs: 1000 },
    source: { kind: 'git', remote: 'origin', branch: 'main' },
    from: { commit: from },
    to: { commit: to },
    phase,
    phases: [{ phase, at: now }],
    lease: { pid: leasePid, expiresAt: now + 30_000 },
    gateway: {
      pid: process.pid,
      launch: { supervisor: 'self', execPath: process.execPath, args: [], cwd: dir },
    },
  };
}

/** Begins a run at `phase` whose updater is gone, with its worktree built and a checkpoint. */
async function staleRun(phase: UpdateRun['phase']): Promise<UpdateRun> {
  const ledger = createUpdateLedger({ stateDir });
  const run = runAt(phase, await deadPid());
  const checkpoint = path.join(run.runDir, 'checkpoint');
  await mkdir(checkpoint, { recursive: true });
  await writeFile(path.join(checkpoint, 'config'), '{}\n');
  await writeBuild(path.join(run.runDir, 'build', 'dist'), to);
  run.checkpoint = { dir: checkpoint, configFile: path.join(dir, 'gateway.jsonc') };
  const begun = await ledger.begin(run);
  if (!begun.ok) throw new Error(begun.error);
  return run;
}

/** What a switch that got to its end leaves: the old build in the checkpoint, the new one in place, the checkout at the target. */
async function switchWhole(run: UpdateRun): Promise<void> {
  await mkdir(path.join(run.runDir, 'checkpoint', 'old'), { recursive: true });
  await rename(path.join(root, 'dist'), path.join(run.runDir, 'checkpoint', 'old', 'dist'));
  await rename(path.join(run.runDir, 'build', 'dist'), path.join(root, 'dist'));
  await git(root, 'reset', '--quiet', '--keep', to);
}

function service() {
  const notes: string[] = [];
  const updates = createUpdateService({
    root,
    configFile: path.join(dir, 'gateway.jsonc'),
    stateDir,
    settings: { source: {}, watchMs: 1000, startTimeoutMs: 1000, keepMs: 1000 },
    drainTimeoutMs: 1000,
    gatewayPid: async () => ok(process.pid),
    recordNote: async (_run, text) => {
      notes.push(text);
    },
  });
  return { updates, notes };
}

const builtCommit = async () =>
  (JSON.parse(await readFile(path.join(root, 'dist', 'update-build.json'), 'utf8')) as { commit: string })
    .commit;

describe('recovering a run whose updater was killed in the switch', () => {
  it('killed between moving the old build aside and the new one in: the old build comes back', async () => {
    const run = await staleRun('switch');
    // The old dist/ went to the checkpoint; the new one had not moved in yet.
    await mkdir(path.join(run.runDir, 'checkpoint', 'old'), { recursive: true });
    await rename(path.join(root, 'dist'), path.join(run.runDir, 'checkpoint', 'old', 'dist'));
    const { updates, notes } = service();
    const ended = await updates.recover();
    expect(ended?.phase).toBe('interrupted');
    expect(await exists(path.join(root, 'dist', 'main.js'))).toBe(true);
    expect(await builtCommit()).toBe(from);
    expect(await git(root, 'rev-parse', 'HEAD')).toBe(from);
    expect(notes).toEqual([
      `Update to ${to.slice(0, 7)} interrupted: the updater stopped during switch (killed or hung); the switch was undone. Running ${from.slice(0, 7)}.`,
    ]);
  });

  it('killed between the two renames of the swap: the old dist/ beside the checkout is renamed back', async () => {
    const run = await staleRun('switch');
    await rename(path.join(run.runDir, 'build', 'dist'), path.join(root, 'dist.update-new'));
    await rename(path.join(root, 'dist'), path.join(root, 'dist.update-old'));
    const { updates } = service();
    await updates.recover();
    expect(await builtCommit()).toBe(from);
    for (const leftover of ['dist.update-new', 'dist.update-old'])
      expect(await exists(path.join(root, leftover))).toBe(false);
  });

  it('killed after the new build moved in and the checkout moved: both go back', async () => {
    await switchWhole(await staleRun('switch'));
    const { updates, notes } = service();
    await updates.recover();
    expect(await builtCommit()).toBe(from);
    expect(await git(root, 'rev-parse', 'HEAD')).toBe(from);
    expect(notes[0]).toContain(`Running ${from.slice(0, 7)}.`);
  });

  it('killed while the new build was staged beside dist/: the staged copy goes, dist/ stays', async () => {
    await staleRun('switch');
    await writeBuild(path.join(root, 'dist.update-new'), to);
    const { updates } = service();
    await updates.recover();
    expect(await builtCommit()).toBe(from);
    expect(await exists(path.join(root, 'dist.update-new'))).toBe(false);
  });

  it('killed after the switch (restarting): nothing is undone, the note names the new version', async () => {
    await switchWhole(await staleRun('restart'));
    const { updates, notes } = service();
    await updates.recover();
    expect(await builtCommit()).toBe(to);
    expect(notes).toEqual([
      `Update to ${to.slice(0, 7)} interrupted: the updater stopped during restart (killed or hung). Running ${to.slice(0, 7)}.`,
    ]);
  });
});

// The updater's last touch of the checkout's git (removing its worktree) comes before its run is
// an outcome: once the ledger says `failed`, the next run may begin and add its own worktree, and
// a removal still going then (git worktree prune sees its worktree half gone) takes the new one's
// admin directory with it ("fatal: Could not write new index file", the next run failed at worktree).
describe('a run that fails while proving', () => {
  it('has removed its worktree before the ledger says failed', async () => {
    // node_modules to link: the dependencies step reuses it; the build then fails (no package.json).
    await mkdir(path.join(root, 'node_modules'));
    const ledger = createUpdateLedger({ stateDir });
    const run = runAt('requested', process.pid);
    await mkdir(run.runDir, { recursive: true });
    const begun = await ledger.begin(run);
    if (!begun.ok) throw new Error(begun.error);
    const seen: { phase?: string; worktree: boolean; registered: boolean }[] = [];
    const ended = await runUpdater({
      ledger,
      runId: run.id,
      log: () => {},
      recordNote: async () => {
        seen.push({
          phase: (await ledger.read()).run?.phase,
          worktree: await exists(path.join(run.runDir, 'build')),
          registered: (await git(root, 'worktree', 'list')).includes(path.join(run.runDir, 'build')),
        });
      },
    });
    expect({ phase: ended.phase, at: ended.cause?.phase }).toEqual({ phase: 'failed', at: 'build' });
    expect(seen).toEqual([{ phase: 'failed', worktree: false, registered: false }]);
  });
});
