import { spawn } from 'node:child_process';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { REPO_ROOT } from '../test/helpers/process.js';
import { median } from './durable-drive.js';
import { startBareFastify, startBenchGateway } from './durable-gateway.js';
import { FREE_TEXT } from './durable-throughput.js';
import type { ClientInput, ClientOutput } from './http-client.js';
import { describeLoad, describeMachine, fixed, printTable, ratio } from './report.js';

/**
 * The web chat's HTTP path as a user meets it: durable free text (acknowledged = durable; SQLite)
 * and the same on the memory store, beside a bare fastify app with the same route and body schema,
 * each server alone in this process and the load client in its own (http-client.ts). ROUNDS
 * rounds, cells rotated, a fresh server per cell; medians over rounds. BENCH_PROFILE=1 profiles
 * this process (the server) during the last round's SQLite cell and prints the top frames by
 * self time. Beside the rates, the server's CPU time per message (process.cpuUsage over the
 * cell, warm-up included): on a shared machine it moves far less with the load than a rate does.
 * Not a test: nothing here asserts on speed. Knobs: BENCH_ROUNDS (3), BENCH_MESSAGES
 * (5000), BENCH_CONCURRENCY (32), BENCH_USERS (1000).
 */

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SIZES = {
  messages: Number(process.env.BENCH_MESSAGES ?? 5000),
  concurrency: Number(process.env.BENCH_CONCURRENCY ?? 32),
  users: Number(process.env.BENCH_USERS ?? 1000),
  warmup: 500,
};
const CELLS = ['bare fastify', 'http sqlite', 'http memory'] as const;
type CellName = (typeof CELLS)[number];

function runClient(input: ClientInput): Promise<ClientOutput> {
  const client = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(REPO_ROOT, 'bench', 'http-client.ts'), JSON.stringify(input)],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  client.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  return new Promise((resolve, reject) =>
    client.once('close', (code) =>
      code === 0 ? resolve(JSON.parse(out) as ClientOutput) : reject(new Error(`load client exited ${code}`)),
    ),
  );
}

async function startServer(name: CellName): Promise<{ url: string; token: string; close(): Promise<void> }> {
  if (name === 'bare fastify') return { ...(await startBareFastify()), token: 'none' };
  const bench = await startBenchGateway(name === 'http sqlite' ? 'sqlite' : 'memory');
  return { url: bench.gateway.url, token: bench.gateway.token, close: () => bench.gateway.dispose() };
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

/** Self time per frame (function, file:line), the top `count`, as % of the samples. */
function topFrames(
  profile: { nodes: ProfileNode[]; samples?: number[] },
  count: number,
): { frame: string; percent: number }[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const tally = new Map<string, number>();
  const samples = profile.samples ?? [];
  for (const id of samples) {
    const frame = byId.get(id)?.callFrame;
    if (!frame) continue;
    const file = frame.url ? path.relative(REPO_ROOT, frame.url.replace(/^file:\/\//, '')) : '';
    const key = `${frame.functionName || '(anonymous)'} ${file}${file ? `:${frame.lineNumber + 1}` : ''}`;
    tally.set(key, (tally.get(key) ?? 0) + 1);
  }
  return [...tally]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([frame, hits]) => ({ frame, percent: (hits / Math.max(1, samples.length)) * 100 }));
}

/** The client's figures, and the CPU this process (the server, its threads too) spent per message. */
type CellResult = ClientOutput & { cpuMicrosPerMessage: number };

async function runCell(name: CellName, profile: boolean): Promise<CellResult> {
  const server = await startServer(name);
  const session = profile ? new Session() : undefined;
  try {
    if (session) {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    }
    // CPU, not only the rate: on a machine shared with other work it moves far less with the load.
    const cpu = process.cpuUsage();
    const output = await runClient({ url: server.url, token: server.token, text: FREE_TEXT, ...SIZES });
    const { user, system } = process.cpuUsage(cpu);
    return { ...output, cpuMicrosPerMessage: (user + system) / (SIZES.messages + SIZES.warmup) };
  } finally {
    if (session) {
      const { profile: taken } = await session.post('Profiler.stop');
      console.log(`\nTop frames by self time, server side, ${name}:`);
      for (const { frame, percent } of topFrames(taken as never, 15))
        console.log(`${percent.toFixed(1).padStart(5)}%  ${frame}`);
      session.disconnect();
    }
    await server.close();
  }
}

async function main(): Promise<void> {
  console.log(
    `HTTP path bench: ${describeMachine()}; ${ROUNDS} rounds, ${SIZES.messages} messages, ${SIZES.concurrency} in flight, client in its own process`,
  );
  const results = new Map<CellName, CellResult[]>(CELLS.map((cell) => [cell, []]));
  for (let round = 0; round < ROUNDS; round += 1) {
    const rotated = [...CELLS.slice(round % CELLS.length), ...CELLS.slice(0, round % CELLS.length)];
    for (const name of rotated) {
      const profile = process.env.BENCH_PROFILE === '1' && round === ROUNDS - 1 && name === 'http sqlite';
      const load = describeLoad();
      const result = await runCell(name, profile);
      results.get(name)?.push(result);
      console.log(
        `[round ${round + 1}/${ROUNDS}] ${name}: ${result.rate.toFixed(0)} msg/s, p50 ${result.p50.toFixed(2)} ms, ` +
          `p99 ${result.p99.toFixed(2)} ms, server CPU ${result.cpuMicrosPerMessage.toFixed(0)} µs/msg, ${result.failures} failures (load ${load})`,
      );
      if (result.firstFailure) console.log(`  first failure: ${result.firstFailure}`);
    }
  }
  const rateOf = (name: CellName) => median((results.get(name) ?? []).map((result) => result.rate));
  const fastify = rateOf('bare fastify');
  const cpuOf = (name: CellName) =>
    median((results.get(name) ?? []).map((result) => result.cpuMicrosPerMessage));
  printTable(
    ['', 'msg/s (median)', 'p50 ms', 'p99 ms', 'ratio to fastify', 'server CPU µs/msg', 'CPU ratio'],
    CELLS.map((name) => {
      const rows = results.get(name) ?? [];
      return [
        name,
        fixed(rateOf(name), 0),
        fixed(median(rows.map((row) => row.p50)), 2),
        fixed(median(rows.map((row) => row.p99)), 2),
        ratio(rateOf(name), fastify),
        fixed(cpuOf(name), 0),
        ratio(cpuOf(name), cpuOf('bare fastify')),
      ];
    }),
    {
      title: `Durable free text over HTTP, medians of ${ROUNDS} rounds (load average now ${describeLoad()})`,
    },
  );
}

await main();
process.exit(0);
