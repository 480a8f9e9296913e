import path from 'node:path';
import { makeTempDir, removeDir } from '../test/helpers/machine.js';
import { runAgentCell } from './durable-agent.js';
import { runChild } from './durable-child.js';
import { p50p99, runCommandCell } from './durable-command.js';
import { readInProcess } from './durable-reads.js';
import { createSamples } from './durable-report.js';
import { type Seeded, seedState } from './durable-seed.js';
import { printDurable } from './durable-summary.js';
import { HTTP_CELLS, IN_PROCESS_CELLS, runCell, type ThroughputSizes } from './durable-throughput.js';
import { describeLoad, describeMachine } from './report.js';

/**
 * "Durable at memory speed" side by side, in one run: ROUNDS rounds, each running every cell once
 * (the throughput cells in a rotated order), figures as medians over the rounds. Not a test:
 * nothing here asserts on speed. BENCH_ROUNDS and BENCH_SIZES (comma-separated session counts)
 * shrink it for a quick look.
 */

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SIZES = (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').map(Number);
const THROUGHPUT: ThroughputSizes = { users: 1000, messages: 5000, concurrency: 32, warmup: 500 };
const COMMAND = { perSecond: 1000, messages: 10_000, sessions: 10_000 };
const AGENT = { turns: 200, warmup: 30 };
/** Sessions that send one `/status` before the second RSS reading. */
const TOUCH = 10_000;

async function seedAll(root: string): Promise<Map<number, Seeded>> {
  const seeded = new Map<number, Seeded>();
  const counts = [...new Set([0, ...SIZES, COMMAND.sessions])].sort((a, b) => a - b);
  for (const count of counts) {
    const dir = path.join(root, `sessions-${count}`);
    const state = await seedState(dir, count, count);
    console.log(
      `seeded ${count} sessions + a transcript of ${count} entries in ${(state.seedMs / 1000).toFixed(1)} s`,
    );
    seeded.set(count, state);
  }
  return seeded;
}

const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

async function runRound(
  round: number,
  root: string,
  seeded: Map<number, Seeded>,
  samples: ReturnType<typeof createSamples>,
) {
  const tag = `[round ${round + 1}/${ROUNDS}]`;
  const cells = [...IN_PROCESS_CELLS, ...HTTP_CELLS];
  const rotated = [...cells.slice(round % cells.length), ...cells.slice(0, round % cells.length)];
  for (const name of rotated) {
    const started = performance.now();
    const cell = await runCell(name, THROUGHPUT);
    samples.cell(cell);
    console.log(
      `${tag} ${name}: ${cell.rate.toFixed(0)} msg/s, p99 ${cell.p99.toFixed(2)} ms, ${cell.failures} failures (${seconds(started)})`,
    );
  }
  const commandState = seeded.get(COMMAND.sessions);
  if (commandState) {
    const started = performance.now();
    const figures = await runCommandCell(
      path.join(root, `sessions-${COMMAND.sessions}`),
      commandState,
      COMMAND,
    );
    for (const [name, result] of Object.entries(figures)) samples.command(name, result);
    const cold = p50p99(figures.coldInProcess);
    console.log(`${tag} command cold in-process p99 ${cold.p99.toFixed(2)} ms (${seconds(started)})`);
  }
  for (const store of ['sqlite', 'memory'] as const) {
    const started = performance.now();
    const agent = await runAgentCell(store, AGENT);
    samples.agent(store, agent);
    console.log(
      `${tag} agent ${store}: overhead p99 ${agent.p99.toFixed(2)} ms, ${agent.failures} failures (${seconds(started)})`,
    );
  }
  for (const [count, state] of seeded) {
    const started = performance.now();
    if (count > 0 && SIZES.includes(count)) samples.reads(count, await readInProcess(state));
    const child = await runChild(path.join(root, `sessions-${count}`), state, TOUCH);
    samples.child(count, child);
    console.log(
      `${tag} ${count} sessions: start ${child.startMs.toFixed(0)} ms, RSS ${child.rssIdle.toFixed(0)} → ` +
        `${child.rssTouched.toFixed(0)} MB, GET /api/sessions ${child.list.median.toFixed(1)} ms (${seconds(started)})`,
    );
  }
}

async function main(): Promise<void> {
  console.log(
    `Switchboard durable bench: ${ROUNDS} interleaved rounds; medians over the rounds. Throughput: ` +
      `${THROUGHPUT.messages} free-text messages over ${THROUGHPUT.users} sessions, ${THROUGHPUT.concurrency} in flight, ` +
      `after ${THROUGHPUT.warmup} warm-up messages; a fresh gateway (or Hubot, or fastify) per cell.`,
  );
  console.log(
    `${describeMachine()} (clients and gateway share this process; the RSS/start cells run dist/main.js).`,
  );
  const root = await makeTempDir('switchboard-durable-');
  const started = performance.now();
  try {
    const seeded = await seedAll(root);
    const samples = createSamples();
    for (let round = 0; round < ROUNDS; round += 1) await runRound(round, root, seeded, samples);
    printDurable(samples, { sizes: SIZES, touch: TOUCH, command: COMMAND, agent: AGENT });
  } finally {
    await removeDir(root);
  }
  console.log(`Durable bench took ${seconds(started)}; load average at the end: ${describeLoad()}.`);
}

await main();
