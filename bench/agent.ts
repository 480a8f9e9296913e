import { startTestGateway } from '../test/helpers/gateway.js';
import { runTurns, startInstantModel, type TurnResult } from './agent-load.js';
import { ms, percentile } from './load.js';
import { describeLoad, describeMachine, printTable, ratio } from './report.js';

/**
 * The agent path over real HTTP: web chat → router → tool loop → the real OpenAI SDK → a fake
 * OpenAI server that answers at once. Overhead = client latency − time inside `complete()`.
 * A fresh gateway and fake server per cell. Not a test: nothing here asserts on speed.
 */

const ROUNDS = [1, 2, 5] as const;
const OVERHEAD_USERS = 100;
const OVERHEAD_TURNS = 300;
const OVERHEAD_WARMUP = 50;
const LOAD_USERS = 1000;
const LOAD_TURNS = 5000;
const LOAD_CONCURRENCY = 32;
const LOAD_WARMUP_USERS = 100;
const LOAD_WARMUP_TURNS = 500;
/** Above LOAD_CONCURRENCY, so the gateway's turn limit (default 16) is not what is measured. */
const MAX_CONCURRENT_TURNS = 64;

type StoreKind = 'sqlite' | 'memory';
const STORES: readonly StoreKind[] = ['sqlite', 'memory'];

const users = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, index) => `${prefix}-${index}`);
/** Transcript entries per turn: the user message, N × (assistant tool call + tool result), the final text. */
const entriesPerTurn = (rounds: number) => 2 * rounds + 2;

async function withGateway(
  store: StoreKind,
  rounds: number,
  body: (
    send: (turns: number, concurrency: number, names: readonly string[]) => Promise<TurnResult>,
  ) => Promise<void>,
): Promise<void> {
  const model = await startInstantModel(rounds);
  try {
    const gateway = await startTestGateway({
      config: {
        log: { level: 'warn' },
        store: store === 'memory' ? { url: 'memory://' } : {},
        ...model.config,
        session: { maxConcurrentTurns: MAX_CONCURRENT_TURNS },
      },
      ...model.extensions,
    });
    try {
      const base = { url: gateway.url, token: gateway.token, rounds, clock: model.clock };
      await body((turns, concurrency, names) => runTurns({ ...base, turns, concurrency, users: names }));
    } finally {
      await gateway.dispose();
    }
  } finally {
    await model.close();
  }
}

interface OverheadRow {
  store: StoreKind;
  rounds: number;
  turns: number;
  latency: Float64Array;
  model: Float64Array;
  overhead: Float64Array;
  failures: number;
  firstFailure: string | undefined;
}

async function measureOverhead(store: StoreKind, rounds: number, phase: string): Promise<OverheadRow> {
  const started = performance.now();
  let row: OverheadRow | undefined;
  await withGateway(store, rounds, async (send) => {
    const warmup = await send(OVERHEAD_WARMUP, 1, users('warmup', OVERHEAD_WARMUP));
    const result = await send(OVERHEAD_TURNS, 1, users('user', OVERHEAD_USERS));
    const overhead = result.latencies.map((latency, index) => latency - (result.modelMs[index] ?? 0));
    row = {
      store,
      rounds,
      turns: result.turns,
      latency: result.latencies,
      model: result.modelMs,
      overhead,
      failures: warmup.failures + result.failures,
      firstFailure: warmup.firstFailure ?? result.firstFailure,
    };
  });
  if (!row) throw new Error('no result');
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `${phase} ${rounds} tool round(s) × ${store}: overhead p50 ${percentile(row.overhead, 50).toFixed(2)} ms, ` +
      `${row.failures} failures (${seconds} s with warm-up)`,
  );
  return row;
}

interface LoadRow {
  store: StoreKind;
  result: TurnResult;
  failures: number;
  firstFailure: string | undefined;
}

async function measureLoad(store: StoreKind, phase: string): Promise<LoadRow> {
  const started = performance.now();
  let row: LoadRow | undefined;
  await withGateway(store, 1, async (send) => {
    const warmup = await send(LOAD_WARMUP_TURNS, LOAD_CONCURRENCY, users('warmup', LOAD_WARMUP_USERS));
    const result = await send(LOAD_TURNS, LOAD_CONCURRENCY, users('user', LOAD_USERS));
    if (result.modelCalls !== LOAD_TURNS * 2) {
      result.failures += 1;
      result.firstFailure ??= `${result.modelCalls} model calls, expected ${LOAD_TURNS * 2}`;
    }
    row = {
      store,
      result,
      failures: warmup.failures + result.failures,
      firstFailure: warmup.firstFailure ?? result.firstFailure,
    };
  });
  if (!row) throw new Error('no result');
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `${phase} 1 tool round, ${LOAD_CONCURRENCY} in flight × ${store}: ${turnsPerSecond(row).toFixed(0)} turns/s, ` +
      `${row.failures} failures (${seconds} s with warm-up)`,
  );
  return row;
}

const turnsPerSecond = (row: LoadRow) => (row.result.turns / row.result.elapsedMs) * 1000;

async function main(): Promise<void> {
  const turnsPerUser = Math.ceil(OVERHEAD_TURNS / OVERHEAD_USERS);
  console.log(
    `Switchboard agent bench: web chat turns through the tool loop, the real OpenAI SDK and a fake ` +
      `OpenAI server (instant answers, streaming); a fresh gateway per cell, log level warn.`,
  );
  console.log(`${describeMachine()} (client, gateway and fake model share this process).`);
  console.log(
    `Overhead: ${OVERHEAD_TURNS} turns one at a time over ${OVERHEAD_USERS} sessions (${turnsPerUser} each) after ` +
      `${OVERHEAD_WARMUP} warm-up turns (other sessions); overhead = latency − model time ` +
      '(time inside ModelProvider.complete: SDK + HTTP + fake server).',
  );
  const overheadCells = STORES.flatMap((store) => ROUNDS.map((rounds) => ({ store, rounds })));
  const total = overheadCells.length + STORES.length;
  const overheadRows: OverheadRow[] = [];
  for (const [index, cell] of overheadCells.entries()) {
    overheadRows.push(await measureOverhead(cell.store, cell.rounds, `[${index + 1}/${total}]`));
  }
  const loadRows: LoadRow[] = [];
  for (const [index, store] of STORES.entries()) {
    loadRows.push(await measureLoad(store, `[${overheadCells.length + index + 1}/${total}]`));
  }

  printTable(
    [
      'store',
      'rounds',
      'model calls',
      'transcript',
      'turns',
      'latency p50/p99 ms',
      'model p50/p99 ms',
      'overhead p50/p99 ms',
      'overhead/call p50 ms',
      'failures',
    ],
    overheadRows.map((row) => [
      row.store,
      String(row.rounds),
      String(row.rounds + 1),
      `${0}–${(turnsPerUser - 1) * entriesPerTurn(row.rounds)}`,
      String(row.turns),
      `${ms(row.latency, 50)} / ${ms(row.latency, 99)}`,
      `${ms(row.model, 50)} / ${ms(row.model, 99)}`,
      `${ms(row.overhead, 50)} / ${ms(row.overhead, 99)}`,
      (percentile(row.overhead, 50) / (row.rounds + 1)).toFixed(2),
      String(row.failures),
    ]),
    { leftColumns: 1 },
  );
  console.log(
    '(transcript: entries already in the session before a measured turn; each turn adds 2×rounds+2, ' +
      'far below agentLoop.historyEntries = 200.)',
  );

  console.log(
    `\nThroughput: ${LOAD_TURNS} turns with 1 tool round over ${LOAD_USERS} sessions, ${LOAD_CONCURRENCY} in flight, ` +
      `after ${LOAD_WARMUP_TURNS} warm-up turns (${LOAD_WARMUP_USERS} other sessions); ` +
      `session.maxConcurrentTurns = ${MAX_CONCURRENT_TURNS} (default 16).`,
  );
  printTable(
    ['store', 'turns/s', 'p50 ms', 'p99 ms', 'max ms', 'model calls', 'sessions', 'failures'],
    loadRows.map((row) => [
      row.store,
      turnsPerSecond(row).toFixed(0),
      ms(row.result.latencies, 50),
      ms(row.result.latencies, 99),
      percentile(row.result.latencies, 100).toFixed(1),
      String(row.result.modelCalls),
      String(row.result.sessionKeys.size),
      String(row.failures),
    ]),
    { leftColumns: 1 },
  );

  const overheadP50 = (store: StoreKind, rounds: number) => {
    const row = overheadRows.find((candidate) => candidate.store === store && candidate.rounds === rounds);
    return row && percentile(row.overhead, 50);
  };
  const load = (store: StoreKind) => loadRows.find((row) => row.store === store);
  const parts = STORES.map(
    (store) =>
      `${store} overhead 2/1 rounds ${ratio(overheadP50(store, 2), overheadP50(store, 1))}, ` +
      `5/1 rounds ${ratio(overheadP50(store, 5), overheadP50(store, 1))}`,
  );
  parts.push(
    `overhead sqlite/memory ${ROUNDS.map((rounds) => `${rounds}: ${ratio(overheadP50('sqlite', rounds), overheadP50('memory', rounds))}`).join(', ')}`,
  );
  const sqliteLoad = load('sqlite');
  const memoryLoad = load('memory');
  parts.push(
    `turns/s sqlite/memory ${ratio(sqliteLoad && turnsPerSecond(sqliteLoad), memoryLoad && turnsPerSecond(memoryLoad))}`,
  );
  console.log(`\nSummary (p50 ratios): ${parts.join('; ')}`);
  for (const row of [...overheadRows, ...loadRows]) {
    const label = 'rounds' in row ? `${row.rounds} round(s) × ${row.store}` : `throughput × ${row.store}`;
    if (row.failures > 0) console.log(`! ${label}: ${row.failures} failures, first: ${row.firstFailure}`);
  }
  for (const row of loadRows) {
    if (row.result.sessionKeys.size !== LOAD_USERS)
      console.log(
        `! throughput × ${row.store}: ${row.result.sessionKeys.size} sessions, expected ${LOAD_USERS}`,
      );
  }
  console.log(`Load average at the end: ${describeLoad()}.`);
}

await main();
