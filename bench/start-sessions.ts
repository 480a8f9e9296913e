import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, makeTempDir, removeDir } from '../test/helpers/machine.js';
import { childEnvironment, MAIN_SCRIPT, writeConfig } from '../test/helpers/process.js';
import { type Seeded, seedState } from './durable-seed.js';
import { describeLoad, describeMachine, figures, fixed, printTable } from './report.js';

/**
 * Start to ready and idle RSS at 0, 10k and 100k sessions (issue 36 item 3: under 1 s and under
 * 100 MB): `node dist/main.js start` on a state dir seeded with that many web chat sessions (the
 * default SQLite store, the web chat, no model), from spawn() to the first 200 of `GET /readyz`
 * (polled every 5 ms), the CPU it had used by then, and VmRSS after IDLE_MS idle. RUNS rounds,
 * interleaved over the sizes; medians, with the load average of each round. Not a test: nothing
 * here asserts on speed. Knobs: BENCH_SIZES (0,10000,100000), BENCH_RUNS (5).
 */

const SIZES = (process.env.BENCH_SIZES ?? '0,10000,100000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const IDLE_MS = 3_000;
const TIMEOUT_MS = 60_000;
const TOKEN = 'bench-start-token-0123456789abcdef';

interface Round {
  readyMs: number;
  cpuMs: number;
  rssMb: number;
  load: string;
}

async function procStat(pid: number): Promise<{ cpuMs: number; rssMb: number }> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return {
    cpuMs: (Number(fields[11]) + Number(fields[12])) * 10,
    rssMb: Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024,
  };
}

async function round(dir: string, seeded: Seeded): Promise<Round> {
  const port = await freePort();
  const file = await writeConfig(dir, {
    stateDir: seeded.stateDir,
    http: { port, token: TOKEN },
    log: { level: 'warn' },
  });
  const load = describeLoad();
  const began = performance.now();
  const child = spawn(process.execPath, [MAIN_SCRIPT, 'start', '--config', file], {
    cwd: dir,
    env: childEnvironment(),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('close', resolve));
  try {
    let readyMs = Number.NaN;
    let cpuMs = Number.NaN;
    while (performance.now() - began < TIMEOUT_MS && child.exitCode === null) {
      const response = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
      if (response?.status === 200) {
        readyMs = performance.now() - began;
        cpuMs = (await procStat(child.pid ?? -1)).cpuMs;
        break;
      }
      await sleep(5);
    }
    if (!Number.isFinite(readyMs)) throw new Error(`the gateway was not ready within ${TIMEOUT_MS} ms`);
    await sleep(IDLE_MS);
    return { readyMs, cpuMs, rssMb: (await procStat(child.pid ?? -1)).rssMb, load };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

async function main(): Promise<void> {
  console.log(`Start bench at N sessions: spawn → GET /readyz 200, idle RSS after ${IDLE_MS} ms`);
  console.log(`${describeMachine()}; ${RUNS} rounds, interleaved`);
  const root = await makeTempDir('switchboard-bench-start-sessions-');
  try {
    const seeded = new Map<number, { dir: string; state: Seeded }>();
    for (const size of SIZES) {
      const dir = path.join(root, `sessions-${size}`);
      const state = await seedState(dir, size, 0);
      console.log(`seeded ${size} sessions in ${(state.seedMs / 1000).toFixed(1)} s`);
      seeded.set(size, { dir, state });
    }
    const rounds = new Map<number, Round[]>(SIZES.map((size) => [size, []]));
    for (let run = 1; run <= RUNS; run += 1) {
      for (const size of SIZES) {
        const entry = seeded.get(size);
        if (!entry) continue;
        const result = await round(entry.dir, entry.state);
        rounds.get(size)?.push(result);
        console.log(
          `round ${run}, ${size} sessions: ready ${fixed(result.readyMs, 0)} ms (CPU ${fixed(result.cpuMs, 0)} ms), ` +
            `RSS ${fixed(result.rssMb)} MB (load ${result.load})`,
        );
      }
    }
    const median = (values: Round[], pick: (round: Round) => number) => figures(values.map(pick)).median;
    printTable(
      ['sessions', 'start → /readyz ms', 'CPU to ready ms', 'idle RSS MB', 'load average (first round)'],
      SIZES.map((size) => {
        const values = rounds.get(size) ?? [];
        return [
          String(size),
          fixed(
            median(values, (value) => value.readyMs),
            0,
          ),
          fixed(
            median(values, (value) => value.cpuMs),
            0,
          ),
          fixed(median(values, (value) => value.rssMb)),
          values[0]?.load ?? '',
        ];
      }),
      {
        title: `medians of ${RUNS} (goal: under 1,000 ms and under 100 MB; load average now ${describeLoad()})`,
      },
    );
  } finally {
    await removeDir(root);
  }
}

await main();
process.exit(0);
