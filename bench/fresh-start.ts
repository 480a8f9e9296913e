import { execFileSync, spawn } from 'node:child_process';
import { mkdir, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { defaultToolpackEntries } from '../src/base/config/index.js';
import { freePort, makeTempDir, portIsFree, removeDir } from '../test/helpers/machine.js';
import { childEnvironment, REPO_ROOT, writeConfig } from '../test/helpers/process.js';
import { describeLoad, describeMachine, figures, fixed, printTable } from './report.js';

/**
 * Start to ready on a fresh clone, as a newcomer meets it: `git clone` of this checkout's committed
 * HEAD, node_modules linked from this checkout (`npm ci` is bench/npm-ci.ts), a config with the
 * built-in defaults on a free port, then from spawn to the first 200 of `GET /readyz` for
 * 1. `npm start` cold (no dist/: it builds first), COLD_RUNS times (dist/ and web/dist/ removed before each),
 * 2. `npm start` warm (dist/ up to date: the build is skipped) and
 * 3. `node dist/main.js start` (the floor `npm start` adds to), interleaved, WARM_RUNS rounds.
 * Medians; the load average beside each figure. Not a test: nothing here asserts on speed.
 * Knobs: BENCH_COLD_RUNS (1), BENCH_WARM_RUNS (5).
 */

const COLD_RUNS = Number(process.env.BENCH_COLD_RUNS ?? 1);
const WARM_RUNS = Number(process.env.BENCH_WARM_RUNS ?? 5);
const TIMEOUT_MS = 600_000;

interface Run {
  seconds: number;
  load: string;
}

/** Spawns `command` in its own process group, polls /readyz until 200, then stops the group. */
async function startToReady(command: string, args: string[], cwd: string, port: number): Promise<Run> {
  const load = describeLoad();
  const began = performance.now();
  const child = spawn(command, args, { cwd, env: childEnvironment(), detached: true, stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  try {
    while (performance.now() - began < TIMEOUT_MS && child.exitCode === null) {
      const response = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
      if (response?.status === 200) return { seconds: (performance.now() - began) / 1000, load };
      await sleep(10);
    }
    throw new Error(
      `${command} ${args.join(' ')} in ${cwd}: not ready on port ${port} (exit ${child.exitCode})`,
    );
  } finally {
    if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGTERM');
    await exited;
    // npm exits before the gateway it started has closed its port: the next run must not find it.
    while (!(await portIsFree(port))) await sleep(20);
  }
}

async function main(): Promise<void> {
  const dir = await makeTempDir('switchboard-bench-fresh-');
  const clone = path.join(dir, 'switchboard');
  try {
    execFileSync('git', ['clone', '--quiet', REPO_ROOT, clone]);
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: clone,
      encoding: 'utf8',
    }).trim();
    console.log(`Fresh-clone start bench: ${describeMachine()}; clone of ${REPO_ROOT} at ${commit}`);
    await symlink(path.join(REPO_ROOT, 'node_modules'), path.join(clone, 'node_modules'));
    const port = await freePort();
    await mkdir(path.join(clone, 'config'), { recursive: true });
    const file = path.join(clone, 'config', 'gateway.jsonc');
    await writeConfig(path.dirname(file), {
      http: { port },
      tools: { toolpacks: defaultToolpackEntries(file) },
    });

    const cold: Run[] = [];
    for (let round = 1; round <= COLD_RUNS; round += 1) {
      for (const output of ['dist', 'web/dist'])
        await rm(path.join(clone, output), { recursive: true, force: true });
      const run = await startToReady('npm', ['start', '--silent'], clone, port);
      console.log(`cold ${round}: npm start (builds): ${fixed(run.seconds, 2)} s (load ${run.load})`);
      cold.push(run);
    }
    const warm: Run[] = [];
    const direct: Run[] = [];
    for (let round = 1; round <= WARM_RUNS; round += 1) {
      const run = await startToReady('npm', ['start', '--silent'], clone, port);
      console.log(
        `warm ${round}: npm start (dist/ up to date): ${fixed(run.seconds, 2)} s (load ${run.load})`,
      );
      warm.push(run);
      const floor = await startToReady(process.execPath, ['dist/main.js', 'start'], clone, port);
      console.log(
        `warm ${round}: node dist/main.js start: ${fixed(floor.seconds, 2)} s (load ${floor.load})`,
      );
      direct.push(floor);
    }
    const row = (label: string, runs: Run[]) => {
      const values = figures(runs.map((run) => run.seconds));
      return [
        label,
        String(runs.length),
        fixed(values.median, 2),
        fixed(values.min, 2),
        fixed(values.max, 2),
      ];
    };
    printTable(
      ['spawn → GET /readyz 200', 'runs', 'median s', 'min s', 'max s'],
      [
        row('npm start, cold (builds dist/)', cold),
        row('npm start, warm', warm),
        row('node dist/main.js start', direct),
      ],
      { title: `Start to ready on a fresh clone (load average now ${describeLoad()})` },
    );
  } finally {
    await removeDir(dir);
  }
}

await main();
