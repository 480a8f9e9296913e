import { spawn } from 'node:child_process';
import { mkdir, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import { createStore, type NamespaceIndex, type Store } from '../../src/records/store/index.js';
import { openSqliteStore } from '../../src/records/store/sqlite-store.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';
import { REPO_ROOT } from '../helpers/process.js';
import { type Item, itemIndex } from '../helpers/store-contract.js';

const { logger } = createLogger({ level: 'silent' });

let dir: string;
let file: string;
let store: Store;
/** A second connection to the same file, as another process would have. */
let other: Database.Database;

beforeEach(async () => {
  dir = await makeTempDir('switchboard-sqlite-');
  file = path.join(dir, 'store.sqlite');
  store = await createStore({ url: `sqlite://${file}`, stateDir: dir, logger });
  other = new Database(file);
});
afterEach(async () => {
  other.close();
  await store.close();
  await removeDir(dir);
});

const committed = (key: string) =>
  other.prepare("SELECT value FROM entries WHERE namespace = 'items' AND key = ?").pluck().get(key);

describe('the SQLite store, group commit', () => {
  it('commits the writes of one turn together and resolves each once it is committed', async () => {
    const items = store.namespace<number>('items');
    const writes = [items.set('a', 1), items.set('b', 2), items.set('c', 3)];
    // Queued, not yet in the file: another connection does not see them.
    expect(committed('a')).toBeUndefined();
    await writes[0];
    // One resolved write means its whole batch is in the file.
    expect([committed('a'), committed('b'), committed('c')]).toEqual(['1', '2', '3']);
    await Promise.all(writes);
  });

  it('writes a key queued twice in one batch once, with the last value', async () => {
    other.exec(`CREATE TABLE audit (key TEXT);
      CREATE TRIGGER audit_insert AFTER INSERT ON entries BEGIN INSERT INTO audit VALUES (new.key); END;
      CREATE TRIGGER audit_update AFTER UPDATE ON entries BEGIN INSERT INTO audit VALUES (new.key); END;`);
    const items = store.namespace<number>('items');
    await Promise.all([items.set('a', 1), items.set('a', 2), items.set('b', 1), items.delete('b')]);
    expect(other.prepare('SELECT key FROM audit').pluck().all()).toEqual(['a']);
    expect(await items.get('a')).toBe(2);
    expect(await items.get('b')).toBeUndefined();
  });

  it('reads what is queued before it is committed: get, getMany, entries, page and touch', async () => {
    const plain = store.namespace<number>('items');
    const listed = store.namespace<Item>('listed', { index: itemIndex });
    await plain.set('gone', 0);
    const writes = [plain.set('a', 1), plain.delete('gone'), listed.set('x', { list: 'l', at: 1 })];
    expect(await plain.get('a')).toBe(1);
    expect(await plain.getMany(['a', 'gone', 'missing'])).toEqual([1, undefined, undefined]);
    const keys: string[] = [];
    for await (const [key] of plain.entries()) keys.push(key);
    expect(keys).toEqual(['a']);
    const touched = [listed.set('y', { list: 'l', at: 2 }), listed.touch('x', 3)];
    expect((await listed.page({ group: 'l', limit: 10 })).entries).toEqual([
      { key: 'x', value: { list: 'l', at: 1 }, order: 3 },
      { key: 'y', value: { list: 'l', at: 2 }, order: 2 },
    ]);
    await Promise.all([...writes, ...touched]);
  });

  it('rejects every write of a failed commit with STORE_WRITE_FAILED naming the file, keeps none, and stays usable', async () => {
    other.exec(`CREATE TRIGGER poison BEFORE INSERT ON entries WHEN new.key = 'poison'
      BEGIN SELECT RAISE(ABORT, 'poisoned'); END;`);
    const items = store.namespace<number>('items');
    const results = await Promise.allSettled([items.set('ok', 1), items.set('poison', 2)]);
    for (const result of results) {
      expect(result.status).toBe('rejected');
      const error = (result as PromiseRejectedResult).reason;
      expect(error.code).toBe('STORE_WRITE_FAILED');
      expect(error.message).toContain(file);
    }
    expect(await items.get('ok')).toBeUndefined();
    expect(committed('ok')).toBeUndefined();
    await items.set('ok', 3);
    expect(committed('ok')).toBe('3');
  });

  it('fails a write while another process holds the write lock, then writes once it is released', async () => {
    const locked = await createStore({
      url: `sqlite://${path.join(dir, 'locked.sqlite')}`,
      stateDir: dir,
      logger,
    });
    const holder = new Database(path.join(dir, 'locked.sqlite'));
    holder.exec('BEGIN IMMEDIATE');
    const error = await locked
      .namespace('items')
      .set('k', 1)
      .catch((e) => e);
    expect(error.code).toBe('STORE_WRITE_FAILED');
    expect(error.message).toContain('locked.sqlite');
    holder.exec('ROLLBACK');
    holder.close();
    await locked.namespace('items').set('k', 2);
    expect(await locked.namespace('items').get('k')).toBe(2);
    await locked.close();
  }, 10_000);
});

describe('the SQLite store, checkpoints', () => {
  it('copies the WAL into the database file from a thread of its own, without the writer reaching its threshold', async () => {
    const { size: before } = await stat(file);
    const items = store.namespace<string>('items');
    // About 50 pages: far below SQLite's own 1,000-page checkpoint threshold on the writer.
    await Promise.all(Array.from({ length: 200 }, (_, index) => items.set(`k${index}`, 'x'.repeat(800))));
    await expect.poll(async () => (await stat(file)).size).toBeGreaterThan(before + 100_000);
    expect(committed('k199')).toBe(JSON.stringify('x'.repeat(800)));
  });

  it('truncates a WAL past its limit from the writer (the thread’s checkpoints never shrink the file)', async () => {
    const limited = await openSqliteStore({
      url: `sqlite://${path.join(dir, 'limited.sqlite')}`,
      logger,
      walLimitBytes: 256 * 1024,
    });
    try {
      const items = limited.namespace<string>('items');
      await Promise.all(Array.from({ length: 600 }, (_, index) => items.set(`k${index}`, 'x'.repeat(800))));
      const walSize = async () => (await stat(path.join(dir, 'limited.sqlite-wal'))).size;
      expect(await walSize()).toBeGreaterThan(256 * 1024);
      await items.set('one more', 'x');
      await expect.poll(walSize).toBe(0);
      expect(await items.get('k599')).toBe('x'.repeat(800));
    } finally {
      await limited.close();
    }
  });
  it('falls back to checkpoints on the writer when its folder goes away, rather than throwing from the timer', async () => {
    // Seen in start-check.test.ts: the state dir renamed under a running gateway made the check's
    // stat of the WAL throw ENOTDIR from a timer, an uncaught exception that ended the process.
    const lines: string[] = [];
    const { logger: watched } = createLogger({
      level: 'warn',
      destination: { write: (line: string) => void lines.push(line) },
    });
    const folder = path.join(dir, 'moved-away');
    await mkdir(folder);
    const moving = await openSqliteStore({
      url: `sqlite://${path.join(folder, 'moving.sqlite')}`,
      logger: watched,
    });
    try {
      const items = moving.namespace<string>('items');
      const { size: before } = await stat(path.join(folder, 'moving.sqlite'));
      await Promise.all(Array.from({ length: 200 }, (_, index) => items.set(`k${index}`, 'x'.repeat(800))));
      // The thread has its connection open and has checkpointed once.
      await expect
        .poll(async () => (await stat(path.join(folder, 'moving.sqlite'))).size)
        .toBeGreaterThan(before + 100_000);
      await rename(folder, `${folder}-gone`);
      await writeFile(folder, 'not a directory any more\n');
      // Committed through the open file; the next tick finds the WAL's path a file's child.
      await items.set('after', 'x');
      await expect
        .poll(() => lines.map((line) => JSON.parse(line) as { msg: string; reason?: string }))
        .toContainEqual(
          expect.objectContaining({
            msg: 'store: the checkpoint thread failed; SQLite checkpoints on the writer again',
            reason: expect.stringContaining('ENOTDIR'),
          }),
        );
      await items.set('later', 'y');
      expect(await items.get('later')).toBe('y');
    } finally {
      await moving.close();
    }
  });
});

describe('the SQLite store, index', () => {
  it('computes positions on the first indexed open of entries written without the index', async () => {
    const plain = store.namespace<Item>('listed');
    await Promise.all([plain.set('a', { list: 'l', at: 2 }), plain.set('b', { list: 'l', at: 1 })]);
    await store.close();
    store = await createStore({ url: `sqlite://${file}`, stateDir: dir, logger });
    const listed = store.namespace<Item>('listed', { index: itemIndex });
    expect((await listed.page({ group: 'l', limit: 10 })).entries.map((entry) => entry.key)).toEqual([
      'a',
      'b',
    ]);
    expect(other.prepare("SELECT count(*) FROM store_meta WHERE name LIKE 'unindexed:%'").pluck().get()).toBe(
      0,
    );
  });
  it('marks a namespace written without its index in its first commit only, again after a failed commit', async () => {
    // Counts each attempt to write a mark (a BEFORE trigger fires for an INSERT OR IGNORE too).
    other.exec(`CREATE TABLE mark_writes (name TEXT);
      CREATE TRIGGER count_marks BEFORE INSERT ON store_meta BEGIN INSERT INTO mark_writes VALUES (new.name); END;
      CREATE TRIGGER poison BEFORE INSERT ON entries WHEN new.key = 'poison'
      BEGIN SELECT RAISE(ABORT, 'poisoned'); END;`);
    const marks = () => other.prepare('SELECT count(*) FROM mark_writes').pluck().get();
    const marked = () =>
      other.prepare("SELECT count(*) FROM store_meta WHERE name = 'unindexed:listed'").pluck().get();
    const plain = store.namespace<Item>('listed');
    await expect(plain.set('poison', { list: 'l', at: 0 })).rejects.toMatchObject({
      code: 'STORE_WRITE_FAILED',
    });
    expect([marks(), marked()]).toEqual([0, 0]);
    for (const [key, at] of [
      ['a', 2],
      ['b', 1],
      ['c', 3],
    ] as const)
      await plain.set(key, { list: 'l', at });
    expect([marks(), marked()]).toEqual([1, 1]);
  });
});

describe('the SQLite store, an index that gives no number', () => {
  const byAt: NamespaceIndex<{ at?: number }> = { order: (_key, value) => Number(value.at) };

  it('refuses the write (an entry at NaN would never be listed)', async () => {
    const listed = store.namespace('listed', { index: byAt });
    await expect(listed.set('k', {})).rejects.toMatchObject({
      code: 'GATEWAY_STATE',
      message: expect.stringContaining('"k"'),
    });
    expect(await listed.get('k')).toBeUndefined();
  });

  it('fails the indexed open of entries it cannot place, naming the namespace and the entry', async () => {
    await store.namespace('listed').set('k', {});
    await store.close();
    store = await createStore({ url: `sqlite://${file}`, stateDir: dir, logger });
    expect(() => store.namespace('listed', { index: byAt })).toThrow(
      expect.objectContaining({
        code: 'STORE_MIGRATION_FAILED',
        message: expect.stringMatching(/"listed".*"k"/),
      }),
    );
  });
});

describe('the SQLite store, durability', () => {
  it('keeps every write it acknowledged when the process is SIGKILLed', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/sqlite-writer.ts', file], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const acknowledged: number[] = [];
    let buffered = '';
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        acknowledged.push(...lines.map(Number));
        if (acknowledged.length >= 2000 && child.exitCode === null) {
          child.kill('SIGKILL');
          resolve();
        }
      });
    });
    await new Promise((resolve) => child.once('exit', resolve));
    const reopened = await createStore({ url: `sqlite://${file}`, stateDir: dir, logger });
    const values = await reopened.namespace<{ n: number }>('items').getMany(acknowledged.map(String));
    expect(values.filter((value) => value === undefined)).toEqual([]);
    await reopened.close();
  }, 60_000);
});
