import { startTestGateway } from '../test/helpers/gateway.js';
import { runLoad } from './load.js';
import { measureWrappers } from './metrics-wrappers.js';
import { describeLoad, describeMachine, figures, fixed, printTable, ratio } from './report.js';

/**
 * What collecting metrics costs, over real HTTP on 127.0.0.1 (web chat), on the command path
 * (`/status`: the router, the inbound and delivery counters) and on the no-model reply path (free
 * text: a turn through the observed runner, the message timed once), with
 * the host collecting metrics (the default) and without (`collectMetrics: false`: no wrappers, no
 * registry). Rounds go on, off, off, on… on a fresh gateway each (memory store), so a steady drift
 * in the machine's load falls on both; the medians of the rounds are compared. Then what one
 * scrape of `GET /metrics` takes after that traffic, and the wrappers alone in-process
 * (`metrics-wrappers.ts`). Not a test: nothing here asserts on speed.
 */

const ROUNDS = 8;
/** On, off, off, on (repeated): a load that drifts steadily during a path weighs on both alike. */
const ORDER = [true, false, false, true] as const;
const MESSAGES = 2000;
const WARMUP_MESSAGES = 300;
const CONCURRENCY = 8;
const USERS = Array.from({ length: 50 }, (_, index) => `user-${index}`);
const SCRAPES = 50;
const PATHS = [
  { name: 'command', text: '/status' },
  { name: 'no-model turn', text: 'hello, is anyone there?' },
] as const;
type Path = (typeof PATHS)[number];

interface Round {
  path: Path;
  collect: boolean;
  /** Median latency of one message, ms. */
  p50: number;
  perSecond: number;
  failures: number;
  /** Each scrape's time, ms (metrics on only). */
  scrapes: number[];
}

async function measure(path: Path, collect: boolean): Promise<Round> {
  const gateway = await startTestGateway({
    collectMetrics: collect,
    config: { log: { level: 'warn' }, store: { url: 'memory://' } },
  });
  try {
    const base = {
      url: gateway.url,
      token: gateway.token,
      text: path.text,
      users: USERS,
      concurrency: CONCURRENCY,
    };
    const warmup = await runLoad({ ...base, messages: WARMUP_MESSAGES });
    const result = await runLoad({ ...base, messages: MESSAGES });
    return {
      path,
      collect,
      p50: figures(Array.from(result.latencies)).median,
      perSecond: (result.messages / result.elapsedMs) * 1000,
      failures: warmup.failures + result.failures,
      scrapes: collect ? await timeScrapes(gateway.url, gateway.token) : [],
    };
  } finally {
    await gateway.dispose();
  }
}

async function timeScrapes(url: string, token: string): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < SCRAPES; index += 1) {
    const started = performance.now();
    const response = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    await response.text();
    if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
    times.push(performance.now() - started);
  }
  return times;
}

interface Row {
  path: Path;
  collect: boolean;
  p50: number;
  perSecond: number;
  failures: number;
}

function rowsOf(rounds: readonly Round[]): Row[] {
  const median = (values: number[]) => figures(values).median;
  return PATHS.flatMap((path) =>
    [true, false].map((collect) => {
      const chosen = rounds.filter((round) => round.path === path && round.collect === collect);
      return {
        path,
        collect,
        p50: median(chosen.map((round) => round.p50)),
        perSecond: median(chosen.map((round) => round.perSecond)),
        failures: chosen.reduce((sum, round) => sum + round.failures, 0),
      };
    }),
  );
}

function summarize(rounds: readonly Round[]): void {
  const rows = rowsOf(rounds);
  printTable(
    ['path', 'metrics', 'rounds', 'median p50 ms', 'median msgs/s', 'failures'],
    rows.map((row) => [
      `${row.path.name} (${row.path.text})`,
      row.collect ? 'on' : 'off',
      String(ROUNDS / 2),
      fixed(row.p50, 3),
      fixed(row.perSecond, 0),
      String(row.failures),
    ]),
    { leftColumns: 2, title: `${MESSAGES} messages per round, ${CONCURRENCY} in flight` },
  );
  const parts = PATHS.map((path) => {
    const on = rows.find((row) => row.path === path && row.collect);
    const off = rows.find((row) => row.path === path && !row.collect);
    return `${path.name} on/off latency ${ratio(on?.p50, off?.p50)}, throughput ${ratio(on?.perSecond, off?.perSecond)}`;
  });
  const scrapes = figures(rounds.flatMap((round) => round.scrapes));
  console.log(`\nSummary (1.00× = no cost; a few % either way is noise here): ${parts.join('; ')}.`);
  console.log(
    `One GET /metrics scrape: median ${fixed(scrapes.median, 2)} ms, p90 ${fixed(scrapes.p90, 2)} ms over ${scrapes.count}.`,
  );
}

async function main(): Promise<void> {
  console.log(
    `Switchboard metrics bench: with and without metrics collection, ${ROUNDS} rounds per path (on, off, off, on…) ` +
      `(a fresh gateway each, after a warm-up of ${WARMUP_MESSAGES} messages; one round of each first, not counted).`,
  );
  console.log(`${describeMachine()} (client and gateway share this process).`);
  // The process's first gateways pay for loading and compiling: one of each, not counted.
  await measure(PATHS[0], true);
  await measure(PATHS[0], false);
  const rounds: Round[] = [];
  for (const path of PATHS) {
    for (let index = 0; index < ROUNDS; index += 1) {
      const round = await measure(path, ORDER[index % ORDER.length] ?? true);
      console.log(
        `${path.name} [${index + 1}/${ROUNDS}] metrics ${round.collect ? 'on ' : 'off'}: p50 ${fixed(round.p50, 3)} ms, ` +
          `${fixed(round.perSecond, 0)} msgs/s, ${round.failures} failures`,
      );
      rounds.push(round);
    }
  }
  summarize(rounds);
  const wrappers = await measureWrappers();
  printTable(
    ['wrapper', 'plain µs/call', 'observed µs/call', 'added µs'],
    wrappers.map((cost) => [
      cost.label,
      fixed(cost.plainMicros, 2),
      fixed(cost.observedMicros, 2),
      fixed(cost.observedMicros - cost.plainMicros, 2),
    ]),
    { title: 'The wrappers alone, in-process (medians of alternating blocks)' },
  );
  console.log(`Load average at the end: ${describeLoad()}.`);
}

await main();
