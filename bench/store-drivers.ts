import path from 'node:path';
import Database from 'better-sqlite3';
import sqlite3 from 'sqlite3';
import { createLogger } from '../src/logging/index.js';
import { createStore } from '../src/store/index.js';
import { SCHEMA_SQL } from '../src/store/sqlite-schema.js';
import { makeTempDir, removeDir } from '../test/helpers/machine.js';
import { describeMachine, figures, printTable, ratio } from './report.js';

/**
 * The two SQLite drivers side by side on the store's layout (`entries`, WAL, synchronous=NORMAL),
 * each on a fresh file per round, interleaved, medians of ROUNDS rounds (`--rounds N`):
 * single commits/s (one autocommitted upsert at a time, each awaited as a store write would be),
 * batched rows/s (BATCH upserts in one transaction), point reads/s (one primary-key read at a time).
 * Then the SQLite store itself on better-sqlite3: `set` with CONCURRENCY writes in flight (group
 * commit) and `get`. Figures and ratios only; nothing here asserts on speed.
 */

const ROUNDS = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 3;
const SINGLE = 2_000;
const BATCH = 50_000;
const READS = 20_000;
const CONCURRENCY = 64;
const VALUE = JSON.stringify({ role: 'user', text: 'x'.repeat(160), senderId: 'webchat:alice', seq: 0 });
const UPSERT = `INSERT INTO entries (namespace, key, value) VALUES ('bench', ?, ?)
  ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value`;
const READ = "SELECT value FROM entries WHERE namespace = 'bench' AND key = ?";
const keyOf = (n: number) => `agent:main:webchat:direct:user-${n}`;

type Figures = Record<'single' | 'batched' | 'reads', number>;
type Driver = (file: string) => Promise<Figures>;

const perSecond = (count: number, began: number) => count / ((performance.now() - began) / 1000);

const betterSqlite3: Driver = async (file) => {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(SCHEMA_SQL);
  const upsert = db.prepare(UPSERT);
  const read = db.prepare(READ).pluck();
  let began = performance.now();
  for (let n = 0; n < SINGLE; n += 1) await Promise.resolve(upsert.run(keyOf(n), VALUE));
  const single = perSecond(SINGLE, began);
  began = performance.now();
  db.transaction(() => {
    for (let n = 0; n < BATCH; n += 1) upsert.run(keyOf(n), VALUE);
  })();
  const batched = perSecond(BATCH, began);
  began = performance.now();
  for (let n = 0; n < READS; n += 1) await Promise.resolve(read.get(keyOf(n % BATCH)));
  const reads = perSecond(READS, began);
  db.close();
  return { single, batched, reads };
};

const nodeSqlite3: Driver = async (file) => {
  const db = await new Promise<sqlite3.Database>((resolve, reject) => {
    const opened: sqlite3.Database = new sqlite3.Database(file, (error) =>
      error ? reject(error) : resolve(opened),
    );
  });
  const exec = (sql: string) =>
    new Promise<void>((resolve, reject) => db.exec(sql, (e) => (e ? reject(e) : resolve())));
  await exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; ${SCHEMA_SQL}`);
  const upsert = db.prepare(UPSERT);
  const read = db.prepare(READ);
  const run = (key: string) =>
    new Promise<void>((resolve, reject) =>
      upsert.run([key, VALUE], (e: Error | null) => (e ? reject(e) : resolve())),
    );
  let began = performance.now();
  for (let n = 0; n < SINGLE; n += 1) await run(keyOf(n));
  const single = perSecond(SINGLE, began);
  began = performance.now();
  // The driver queues statements on its thread in order: all rows go in at once, then COMMIT.
  await exec('BEGIN');
  const rows: Promise<void>[] = [];
  for (let n = 0; n < BATCH; n += 1) rows.push(run(keyOf(n)));
  await Promise.all(rows);
  await exec('COMMIT');
  const batched = perSecond(BATCH, began);
  began = performance.now();
  for (let n = 0; n < READS; n += 1)
    await new Promise((resolve, reject) =>
      read.get([keyOf(n % BATCH)], (e: Error | null, row: unknown) => (e ? reject(e) : resolve(row))),
    );
  const reads = perSecond(READS, began);
  await new Promise<void>((resolve) => upsert.finalize(() => read.finalize(() => resolve())));
  await new Promise<void>((resolve, reject) => db.close((e) => (e ? reject(e) : resolve())));
  return { single, batched, reads };
};

/** The store on better-sqlite3 as callers use it: CONCURRENCY writes in flight share commits. */
const switchboardStore: Driver = async (file) => {
  const store = await createStore({
    url: `sqlite://${file}`,
    stateDir: '.',
    logger: createLogger({ level: 'silent' }).logger,
  });
  const bench = store.namespace<string>('bench');
  const inFlight = async (count: number, task: (n: number) => Promise<unknown>) => {
    let next = 0;
    const worker = async () => {
      while (next < count) await task(next++);
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  };
  let began = performance.now();
  for (let n = 0; n < SINGLE; n += 1) await bench.set(keyOf(n), VALUE);
  const single = perSecond(SINGLE, began);
  began = performance.now();
  await inFlight(BATCH, (n) => bench.set(keyOf(n), VALUE));
  const batched = perSecond(BATCH, began);
  began = performance.now();
  for (let n = 0; n < READS; n += 1) await bench.get(keyOf(n % BATCH));
  const reads = perSecond(READS, began);
  await store.close();
  return { single, batched, reads };
};

const DRIVERS: readonly { name: string; run: Driver }[] = [
  {
    name: `better-sqlite3 12 (SQLite ${new Database(':memory:').prepare('SELECT sqlite_version()').pluck().get()})`,
    run: betterSqlite3,
  },
  { name: `sqlite3 5, async (SQLite ${sqlite3.VERSION})`, run: nodeSqlite3 },
  { name: `store set/get (${CONCURRENCY} in flight)`, run: switchboardStore },
];

const results = new Map<string, Figures[]>(DRIVERS.map((driver) => [driver.name, []]));
const dir = await makeTempDir('switchboard-drivers-');
console.log(`store drivers: ${describeMachine()}, ${ROUNDS} rounds, interleaved`);
try {
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const driver of DRIVERS) {
      const figures = await driver.run(path.join(dir, `${round}-${driver.name.replace(/\W+/g, '-')}.sqlite`));
      results.get(driver.name)?.push(figures);
    }
  }
} finally {
  await removeDir(dir);
}
const median = (name: string, field: keyof Figures) =>
  figures((results.get(name) ?? []).map((round) => round[field])).median;
const whole = (value: number) => Math.round(value).toLocaleString('en-US');
printTable(
  ['driver', 'single commits/s', 'batched rows/s', 'point reads/s'],
  DRIVERS.map(({ name }) => [
    name,
    whole(median(name, 'single')),
    whole(median(name, 'batched')),
    whole(median(name, 'reads')),
  ]),
  {
    title: `medians of ${ROUNDS}; single = ${SINGLE} autocommits, batched = ${BATCH} rows in one transaction (the store: ${CONCURRENCY} sets in flight), reads = ${READS}`,
  },
);
const [better, async] = DRIVERS.map((driver) => driver.name) as [string, string];
console.log(
  `\nbetter-sqlite3/sqlite3: single ${ratio(median(better, 'single'), median(async, 'single'))}, batched ${ratio(median(better, 'batched'), median(async, 'batched'))}, reads ${ratio(median(better, 'reads'), median(async, 'reads'))}`,
);
