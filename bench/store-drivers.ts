import path from 'node:path';
import Database from 'better-sqlite3';
import { createLogger } from '../src/base/logging/index.js';
import { createStore } from '../src/records/store/index.js';
import { SCHEMA_SQL } from '../src/records/store/sqlite-schema.js';
import { makeTempDir, removeDir } from '../test/helpers/machine.js';
import { describeMachine, figures, printTable, ratio } from './report.js';

/**
 * The two SQLite drivers side by side on the store's layout (`entries`, WAL, synchronous=NORMAL),
 * each on a fresh file per round, interleaved, medians of ROUNDS rounds (`--rounds N`):
 * single commits/s (one autocommitted upsert at a time, each awaited as a store write would be),
 * batched rows/s (BATCH upserts in one transaction), point reads/s (one primary-key read at a time).
 * Then the SQLite store itself on better-sqlite3: `set` with CONCURRENCY writes in flight (group
 * commit) and `get`. Figures and ratios only; nothing here asserts on speed.
 *
 * `sqlite3` is not a dependency (it compiled a second SQLite at every install, for this bench
 * alone): its row runs only where it can be imported (allow its install script in `allowScripts`, then
 * `npm install --no-save sqlite3`);
 * elsewhere the output says so and prints the ratios saved from its last run instead.
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

/** What this bench uses of `sqlite3` (declared here: the package is not installed by `npm ci`). */
type Callback<T = void> = (error: Error | null, value: T) => void;
interface AsyncStatement {
  run(params: unknown[], done: Callback): void;
  get(params: unknown[], done: Callback<unknown>): void;
  finalize(done: () => void): void;
}
interface AsyncDatabase {
  exec(sql: string, done: (error: Error | null) => void): void;
  prepare(sql: string): AsyncStatement;
  close(done: (error: Error | null) => void): void;
}
interface AsyncDriver {
  VERSION: string;
  Database: new (file: string, opened: (error: Error | null) => void) => AsyncDatabase;
}

/**
 * better-sqlite3 over sqlite3 as measured by this bench on the project's 2-core machine when
 * `sqlite3` was still a devDependency (commit ab76219, 2026-12-01; see docs/dependencies.md).
 */
const SAVED_RATIOS = { batched: '6×', reads: '4×' } as const;

/** `sqlite3` when it can be imported here; the name is a variable so that tsc does not require it. */
async function importSqlite3(): Promise<AsyncDriver | undefined> {
  const name = 'sqlite3';
  try {
    const loaded = (await import(name)) as { default: AsyncDriver };
    return loaded.default;
  } catch {
    return undefined;
  }
}
const sqlite3 = await importSqlite3();

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

const nodeSqlite3 =
  (driver: AsyncDriver): Driver =>
  async (file) => {
    const db = await new Promise<AsyncDatabase>((resolve, reject) => {
      const opened: AsyncDatabase = new driver.Database(file, (error) =>
        error ? reject(error) : resolve(opened),
      );
    });
    const exec = (sql: string) =>
      new Promise<void>((resolve, reject) => db.exec(sql, (e) => (e ? reject(e) : resolve())));
    await exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; ${SCHEMA_SQL}`);
    const upsert = db.prepare(UPSERT);
    const read = db.prepare(READ);
    const run = (key: string) =>
      new Promise<void>((resolve, reject) => upsert.run([key, VALUE], (e) => (e ? reject(e) : resolve())));
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
        read.get([keyOf(n % BATCH)], (e, row) => (e ? reject(e) : resolve(row))),
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
  ...(sqlite3 ? [{ name: `sqlite3 5, async (SQLite ${sqlite3.VERSION})`, run: nodeSqlite3(sqlite3) }] : []),
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
if (sqlite3)
  console.log(
    `\nbetter-sqlite3/sqlite3: single ${ratio(median(better, 'single'), median(async, 'single'))}, batched ${ratio(median(better, 'batched'), median(async, 'batched'))}, reads ${ratio(median(better, 'reads'), median(async, 'reads'))}`,
  );
else
  console.log(
    `\nsqlite3 is not installed (not a dependency; to measure it here, allow its install script in package.json's allowScripts and \`npm install --no-save sqlite3\`), so no sqlite3 row.` +
      `\nbetter-sqlite3/sqlite3 saved from its last run (ab76219, 2026-12-01, this project's 2-core machine): batched ${SAVED_RATIOS.batched}, reads ${SAVED_RATIOS.reads}`,
  );
