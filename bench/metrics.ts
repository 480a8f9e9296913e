import { startTestGateway } from '../test/helpers/gateway.js';
import { runLoad } from './load.js';
import { describeLoad, describeMachine, figures, fixed, printTable, ratio } from './report.js';

/**
 * What collecting metrics costs on the command path: web chat `/status` over real HTTP on
 * 127.0.0.1 (router, session store, reply delivery: every part the observer wraps except the
 * model and tools), with the host collecting metrics (the default) and without
 * (`collectMetrics: false`: no wrappers, no registry). Rounds alternate on, off, on, off… on a
 * fresh gateway each (memory store), so drift in the machine's load falls on both; the medians of
 * the rounds are compared. Then what one scrape of `GET /metrics` takes after that traffic. Not a
 * test: nothing here asserts on speed.
 */

const ROUNDS = 8;
const MESSAGES = 2000;
const WARMUP_MESSAGES = 300;
const CONCURRENCY = 8;
const USERS = Array.from({ length: 50 }, (_, index) => `user-${index}`);
const SCRAPES = 50;
const TEXT = '/status';

interface Round {
  collect: boolean;
  /** Median latency of one message, ms. */
  p50: number;
  perSecond: number;
  failures: number;
  /** Each scrape's time, ms (metrics on only). */
  scrapes: number[];
}

async function measure(collect: boolean): Promise<Round> {
  const gateway = await startTestGateway({
    collectMetrics: collect,
    config: { log: { level: 'warn' }, store: { url: 'memory://' } },
  });
  try {
    const base = {
      url: gateway.url,
      token: gateway.token,
      text: TEXT,
      users: USERS,
      concurrency: CONCURRENCY,
    };
    const warmup = await runLoad({ ...base, messages: WARMUP_MESSAGES });
    const result = await runLoad({ ...base, messages: MESSAGES });
    const p50 = figures(Array.from(result.latencies)).median;
    return {
      collect,
      p50,
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

function summarize(rounds: readonly Round[]): void {
  const of = (collect: boolean) => rounds.filter((round) => round.collect === collect);
  const median = (values: number[]) => figures(values).median;
  const rows = [true, false].map((collect) => {
    const chosen = of(collect);
    return {
      label: collect ? 'metrics on' : 'metrics off',
      p50: median(chosen.map((round) => round.p50)),
      perSecond: median(chosen.map((round) => round.perSecond)),
      failures: chosen.reduce((sum, round) => sum + round.failures, 0),
    };
  });
  const [on, off] = rows;
  printTable(
    ['', 'rounds', 'median p50 ms', 'median msgs/s', 'failures'],
    rows.map((row) => [
      row.label,
      String(ROUNDS / 2),
      fixed(row.p50, 3),
      fixed(row.perSecond, 0),
      String(row.failures),
    ]),
    { title: `${TEXT} over HTTP, ${MESSAGES} messages per round, ${CONCURRENCY} in flight` },
  );
  const scrapes = figures(of(true).flatMap((round) => round.scrapes));
  console.log(
    `\nSummary: metrics on/off latency ${ratio(on?.p50, off?.p50)}, throughput ${ratio(on?.perSecond, off?.perSecond)}` +
      ` (1.00× = no cost; within a few % is noise here); one GET /metrics scrape: median ${fixed(scrapes.median, 2)} ms,` +
      ` p90 ${fixed(scrapes.p90, 2)} ms over ${scrapes.count}.`,
  );
}

async function main(): Promise<void> {
  console.log(
    `Switchboard metrics bench: ${TEXT} with and without metrics collection, ${ROUNDS} alternating rounds ` +
      `(a fresh gateway each, after a warm-up of ${WARMUP_MESSAGES} messages; one round of each first, not counted).`,
  );
  console.log(`${describeMachine()} (client and gateway share this process).`);
  // The process's first gateways pay for loading and compiling: one of each, not counted.
  await measure(true);
  await measure(false);
  const rounds: Round[] = [];
  for (let index = 0; index < ROUNDS; index += 1) {
    const round = await measure(index % 2 === 0);
    console.log(
      `[${index + 1}/${ROUNDS}] metrics ${round.collect ? 'on ' : 'off'}: p50 ${fixed(round.p50, 3)} ms, ` +
        `${fixed(round.perSecond, 0)} msgs/s, ${round.failures} failures`,
    );
    rounds.push(round);
  }
  summarize(rounds);
  console.log(`Load average at the end: ${describeLoad()}.`);
}

await main();
