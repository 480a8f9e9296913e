import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startTestGateway } from '../test/helpers/gateway.js';
import { percentile, runLoad } from './load.js';
import { describeLoad, describeMachine, printTable, ratio } from './report.js';

/**
 * Web chat throughput and latency over real HTTP on 127.0.0.1, for the command path
 * (`/status`: no transcript write) and the no-model reply path (free text: transcript
 * writes, session queue, turn), each with the SQLite and the memory store. A fresh gateway
 * per cell. Not a test: nothing here asserts on speed.
 */

const USERS = 1000;
const MESSAGES = 5000;
const CONCURRENCY = 32;
const WARMUP_USERS = 100;
const WARMUP_MESSAGES = 1000;

const PATHS = [
  { name: 'command', label: '/status', text: '/status' },
  { name: 'no-model', label: 'free text', text: 'hello, is anyone there?' },
] as const;
type StoreKind = 'sqlite' | 'memory';
const STORES: readonly StoreKind[] = ['sqlite', 'memory'];

interface Row {
  path: (typeof PATHS)[number];
  store: StoreKind;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
  rssBefore: number;
  rssAfter: number;
  sessions: number;
  failures: number;
  firstFailure: string | undefined;
}

const collectGarbage = obtainGc();

function obtainGc(): (() => void) | undefined {
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return undefined;
  }
}

function rssMegabytes(): number {
  return process.memoryUsage().rss / 1024 / 1024;
}

function settle(): number {
  collectGarbage?.();
  return rssMegabytes();
}

async function measure(path: (typeof PATHS)[number], store: StoreKind, phase: string): Promise<Row> {
  const started = performance.now();
  // The same in-process gateway the integration tests start: port 0 on 127.0.0.1, a temp state dir.
  const gateway = await startTestGateway({
    config: { log: { level: 'warn' }, store: store === 'memory' ? { url: 'memory://' } : {} },
  });
  try {
    const warmupUsers = Array.from({ length: WARMUP_USERS }, (_, index) => `warmup-${index}`);
    const base = { url: gateway.url, token: gateway.token, text: path.text, concurrency: CONCURRENCY };
    const warmup = await runLoad({ ...base, users: warmupUsers, messages: WARMUP_MESSAGES });
    const rssBefore = settle();
    const users = Array.from({ length: USERS }, (_, index) => `user-${index}`);
    const result = await runLoad({ ...base, users, messages: MESSAGES });
    const rssAfter = rssMegabytes();
    const row: Row = {
      path,
      store,
      perSecond: (result.messages / result.elapsedMs) * 1000,
      p50: percentile(result.latencies, 50),
      p99: percentile(result.latencies, 99),
      max: percentile(result.latencies, 100),
      rssBefore,
      rssAfter,
      sessions: result.sessionKeys.size,
      failures: result.failures + warmup.failures,
      firstFailure: warmup.firstFailure ?? result.firstFailure,
    };
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `${phase} ${path.label} × ${store}: ${row.perSecond.toFixed(0)} msgs/s, p50 ${row.p50.toFixed(2)} ms, ` +
        `p99 ${row.p99.toFixed(2)} ms, ${row.failures} failures (${seconds} s with warm-up)`,
    );
    return row;
  } finally {
    await gateway.dispose();
  }
}

function printRows(rows: readonly Row[]): void {
  const header = [
    'path',
    'store',
    'msgs/s',
    'p50 ms',
    'p99 ms',
    'max ms',
    'RSS before→after MB',
    'sessions',
    'failures',
  ];
  const lines = rows.map((row) => [
    row.path.label,
    row.store,
    row.perSecond.toFixed(0),
    row.p50.toFixed(2),
    row.p99.toFixed(2),
    row.max.toFixed(1),
    `${row.rssBefore.toFixed(0)} → ${row.rssAfter.toFixed(0)}`,
    String(row.sessions),
    String(row.failures),
  ]);
  printTable(header, lines, { leftColumns: 2 });
}

function printSummary(rows: readonly Row[]): void {
  const find = (path: string, store: StoreKind) =>
    rows.find((row) => row.path.name === path && row.store === store);
  const parts = PATHS.map(
    (path) =>
      `${path.label} sqlite/memory ${ratio(find(path.name, 'sqlite')?.perSecond, find(path.name, 'memory')?.perSecond)}`,
  );
  for (const store of STORES) {
    parts.push(
      `${store} free text//status ${ratio(find('no-model', store)?.perSecond, find('command', store)?.perSecond)}`,
    );
  }
  console.log(`\nSummary (throughput ratios): ${parts.join('; ')}`);
  for (const row of rows) {
    if (row.failures > 0)
      console.log(`! ${row.path.label} × ${row.store}: ${row.failures} failures, first: ${row.firstFailure}`);
    if (row.sessions !== USERS)
      console.log(`! ${row.path.label} × ${row.store}: ${row.sessions} sessions, expected ${USERS}`);
  }
}

async function main(): Promise<void> {
  console.log(
    `Switchboard web chat bench: ${MESSAGES} messages over ${USERS} sessions, ${CONCURRENCY} in flight, ` +
      `after a warm-up of ${WARMUP_MESSAGES} messages (${WARMUP_USERS} other sessions); a fresh gateway per cell` +
      `${collectGarbage ? '; GC before the "RSS before" reading' : ''}.`,
  );
  console.log(`${describeMachine()} (client and gateway share this process).`);
  const rows: Row[] = [];
  const cells = STORES.flatMap((store) => PATHS.map((path) => ({ store, path })));
  for (const [index, cell] of cells.entries()) {
    rows.push(await measure(cell.path, cell.store, `[${index + 1}/${cells.length}]`));
  }
  printRows(rows);
  printSummary(rows);
  console.log(`Load average at the end: ${describeLoad()}.`);
}

await main();
