import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { type ClientRequest, request } from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { defaultToolpackEntries } from '../src/base/config/index.js';
import { startFakeOpenAIServer } from '../test/fakes/fake-openai-server.js';
import { freePort, makeTempDir, removeDir } from '../test/helpers/machine.js';
import { childEnvironment, MAIN_SCRIPT, pollUntil, REPO_ROOT, writeConfig } from '../test/helpers/process.js';
import type { ProberInput, ProberOutput } from './concurrency-prober.js';
import { type Level, writeConcurrencyReport } from './concurrency-report.js';
import { httpSend } from './durable-gateway.js';
import { percentile } from './load.js';
import { describeLoad, describeMachine } from './report.js';

/**
 * The control plane under load: the built gateway (`node dist/main.js start`, its own process, the
 * built-in toolpacks, SQLite) with N web chat turns streaming at once from a fake OpenAI server
 * that writes TOKENS deltas at TOKENS_PER_S (closed loop: each of N users sends its next message
 * when its turn ends; each user's event stream is open and read, as a page would), while a prober
 * in a third process times `/healthz`, `/api/status`, `GET /api/sessions`, the control UI's script
 * and a `/whoami` chat command (concurrency-prober.ts). Per level: the probes' p50/p95/p99, the
 * gateway's event-loop delay p99 (its `/metrics`, prom-client's monitorEventLoopDelay histogram,
 * reset at the phase's start), its CPU (user + system over the phase) and RSS. Writes
 * bench/reports/concurrency.md. Not a test: nothing here asserts on speed.
 *
 * Knobs: BENCH_LEVELS (default 0,8,32,128), BENCH_PHASE_MS (measured phase per level, 20000),
 * BENCH_TOKENS (deltas per answer, 100), BENCH_TOKENS_PER_S (50), BENCH_PROBE_MS (between probes, 20),
 * BENCH_PROFILE=<dir> (the gateway runs with --cpu-prof and writes its profile there when it stops).
 */

const LEVELS = (process.env.BENCH_LEVELS ?? '0,8,32,128').split(',').map(Number);
const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 20_000);
const TOKENS = Number(process.env.BENCH_TOKENS ?? 100);
const TOKENS_PER_S = Number(process.env.BENCH_TOKENS_PER_S ?? 50);
const PROBE_MS = Number(process.env.BENCH_PROBE_MS ?? 20);
const TOKEN = 'bench-concurrency-token-0123456789';
const REPORT = path.join(REPO_ROOT, 'bench', 'reports', 'concurrency.md');
const ANSWER = Array.from({ length: TOKENS }, (_, index) => `w${index} `).join('');

interface Gateway {
  url: string;
  pid: number;
  child: ChildProcess;
}

async function startGateway(dir: string, modelUrl: string): Promise<Gateway> {
  const port = await freePort();
  const file = path.join(dir, 'gateway.jsonc');
  await writeConfig(dir, {
    stateDir: path.join(dir, 'state'),
    http: { port, token: TOKEN },
    log: { level: 'warn' },
    models: {
      fake: { provider: 'openai', model: 'fake-1', baseUrl: modelUrl, apiKey: 'sk-bench-0123456789' },
    },
    agents: { main: { model: 'fake' } },
    tools: { toolpacks: defaultToolpackEntries(file) },
  });
  const profile = process.env.BENCH_PROFILE;
  const flags = profile ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(profile)}`] : [];
  const child = spawn(process.execPath, [...flags, MAIN_SCRIPT, 'start', '--config', file], {
    cwd: dir,
    env: childEnvironment(),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await pollUntil('the gateway to be ready', async () => (await fetch(`${url}/readyz`)).ok, {
    timeoutMs: 60_000,
    intervalMs: 20,
  });
  return { url, pid: child.pid ?? -1, child };
}

/** utime + stime in ms (/proc/<pid>/stat fields 14 and 15, clock ticks of 10 ms). */
async function cpuMsOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function rssMbOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024;
}

/** The gateway's event-loop delay p99 since the previous scrape (prom-client resets its histogram per scrape). */
async function eventLoopP99Ms(url: string): Promise<number> {
  const response = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const text = await response.text();
  const value = /^switchboard_nodejs_eventloop_lag_p99_seconds(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1];
  return Number(value) * 1000;
}

/** Opens user's web chat event stream and counts the reply deltas it carries. */
function openEvents(url: string, user: string, counter: { deltas: number }): ClientRequest {
  const call = request(
    new URL(`/api/webchat/events?user=${user}`, url),
    { headers: { authorization: `Bearer ${TOKEN}` } },
    (response) => {
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        counter.deltas += chunk.split('event: reply.delta').length - 1;
      });
      response.on('error', () => {});
    },
  );
  call.on('error', () => {});
  call.end();
  return call;
}

/** N users in a closed loop until `stop` is set; resolves with the turns ended and the failures. */
function runTurns(url: string, users: number, level: number, stop: { now: boolean }) {
  const send = httpSend(url, TOKEN, 'Tell me a long story, please.');
  const tally = { turns: 0, failures: 0, firstFailure: undefined as string | undefined, started: 0 };
  const worker = async (index: number) => {
    while (!stop.now) {
      tally.started += 1;
      const failure = await send(index, `load-${level}-${index}`).catch((error: unknown) => String(error));
      tally.turns += 1;
      if (failure !== undefined) {
        tally.failures += 1;
        tally.firstFailure ??= failure;
      }
    }
  };
  const done = Promise.all(Array.from({ length: users }, (_, index) => worker(index)));
  return { tally, done };
}

function runProber(input: ProberInput): Promise<ProberOutput> {
  const prober = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(REPO_ROOT, 'bench', 'concurrency-prober.ts'), JSON.stringify(input)],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  prober.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  return new Promise((resolve, reject) =>
    prober.once('close', (code) =>
      code === 0 ? resolve(JSON.parse(out) as ProberOutput) : reject(new Error(`prober exited ${code}`)),
    ),
  );
}

async function runLevel(gateway: Gateway, level: number): Promise<Level> {
  const counter = { deltas: 0 };
  const streams = Array.from({ length: level }, (_, index) =>
    openEvents(gateway.url, `load-${level}-${index}`, counter),
  );
  const stop = { now: false };
  const turns = runTurns(gateway.url, level, level, stop);
  // Let every user's first turn begin streaming before the phase starts.
  await sleep(level === 0 ? 500 : Math.min(5_000, 1_000 + (TOKENS / TOKENS_PER_S) * 500));
  await eventLoopP99Ms(gateway.url);
  const cpuBefore = await cpuMsOf(gateway.pid);
  const turnsBefore = { ended: turns.tally.turns, deltas: counter.deltas };
  const rss: number[] = [];
  const sampling = setInterval(() => void rssMbOf(gateway.pid).then((mb) => rss.push(mb)), 500);
  const started = performance.now();
  const load = describeLoad();
  const probed = await runProber({
    url: gateway.url,
    token: TOKEN,
    durationMs: PHASE_MS,
    intervalMs: PROBE_MS,
  });
  const wallMs = performance.now() - started;
  clearInterval(sampling);
  const cpuMs = (await cpuMsOf(gateway.pid)) - cpuBefore;
  const loopP99 = await eventLoopP99Ms(gateway.url);
  const turnsEnded = turns.tally.turns - turnsBefore.ended;
  const deltas = counter.deltas - turnsBefore.deltas;
  stop.now = true;
  await turns.done;
  for (const stream of streams) stream.destroy();
  const stats = (values: number[]) => {
    const sorted = Float64Array.from(values);
    return {
      count: values.length,
      p50: percentile(sorted, 50),
      p95: percentile(sorted, 95),
      p99: percentile(sorted, 99),
    };
  };
  return {
    level,
    load,
    probes: Object.entries(probed.latencies).map(([name, values]) => ({ name, ...stats(values) })),
    probeFailures: probed.failures,
    firstProbeFailure: probed.firstFailure,
    eventLoopP99Ms: loopP99,
    cpuPercent: (cpuMs / wallMs) * 100,
    rssMaxMb: Math.max(...rss),
    turnsPerSecond: (turnsEnded / wallMs) * 1000,
    deltasPerSecond: (deltas / wallMs) * 1000,
    turnFailures: turns.tally.failures,
    firstTurnFailure: turns.tally.firstFailure,
  };
}

async function main(): Promise<void> {
  const machine = describeMachine();
  console.log(`Concurrency bench: ${machine}; levels ${LEVELS.join(', ')}; ${PHASE_MS} ms per level`);
  const model = await startFakeOpenAIServer({
    defaultStep: { text: ANSWER, chunks: TOKENS, chunkDelayMs: 1000 / TOKENS_PER_S },
  });
  const dir = await makeTempDir('switchboard-bench-concurrency-');
  const gateway = await startGateway(dir, model.url);
  const levels: Level[] = [];
  try {
    for (const level of LEVELS) {
      const result = await runLevel(gateway, level);
      levels.push(result);
      const p99 = result.probes.map((probe) => `${probe.name} ${probe.p99.toFixed(1)}`).join(', ');
      console.log(
        `${level} turns (load ${result.load}): p99 ms ${p99}; event loop p99 ${result.eventLoopP99Ms.toFixed(1)} ms; ` +
          `CPU ${result.cpuPercent.toFixed(0)}%; RSS ${result.rssMaxMb.toFixed(0)} MB; ` +
          `${result.turnsPerSecond.toFixed(1)} turns/s; ${result.turnFailures + result.probeFailures} failures`,
      );
      if (result.firstTurnFailure) console.log(`  first turn failure: ${result.firstTurnFailure}`);
      if (result.firstProbeFailure) console.log(`  first probe failure: ${result.firstProbeFailure}`);
    }
  } finally {
    gateway.child.kill('SIGTERM');
    await new Promise((resolve) => gateway.child.once('close', resolve));
    await model.close();
    await removeDir(dir);
  }
  await writeConcurrencyReport(REPORT, {
    machine,
    settings: { phaseMs: PHASE_MS, tokens: TOKENS, tokensPerSecond: TOKENS_PER_S, probeMs: PROBE_MS },
    levels,
  });
  console.log(`wrote ${path.relative(REPO_ROOT, REPORT)}`);
}

await main();
process.exit(0);
