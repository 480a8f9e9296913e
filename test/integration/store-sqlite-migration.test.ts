import { createHash } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import { createStore, type NamespaceIndex } from '../../src/records/store/index.js';
import { startTestGateway } from '../helpers/gateway.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';
import { REPO_ROOT } from '../helpers/process.js';

const FIXTURE = path.join(REPO_ROOT, 'test/fixtures/store-v0/switchboard.sqlite');

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await makeTempDir('switchboard-migration-');
  file = path.join(dir, 'switchboard.sqlite');
  await copyFile(FIXTURE, file);
});
afterEach(async () => {
  await removeDir(dir);
});

function collectingLogger() {
  const lines: { msg: string; backup?: string }[] = [];
  const { logger } = createLogger({
    level: 'info',
    destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
  });
  return { lines, logger };
}

/** The fixture's rows as @keyv/sqlite wrote them: `<namespace>:<key>` → `{"value": …}`. */
function legacyRows(source: string): Map<string, unknown> {
  const db = new Database(source, { readonly: true });
  const rows = db.prepare<[], { key: string; value: string }>('SELECT key, value FROM keyv').all();
  db.close();
  return new Map(rows.map((row) => [row.key, JSON.parse(row.value).value]));
}

const backups = async () => (await readdir(dir)).filter((name) => name.includes('.v0-backup-'));
const open = (logger = createLogger({ level: 'silent' }).logger) =>
  createStore({ url: `sqlite://${file}`, stateDir: dir, logger });

describe('the SQLite store, migration of the legacy layout', () => {
  it('backs the file up, names the backup in the log, and keeps every entry readable', async () => {
    const before = legacyRows(file);
    const log = collectingLogger();
    const store = await open(log.logger);
    for (const [prefixed, value] of before) {
      const colon = prefixed.indexOf(':');
      expect(await store.namespace(prefixed.slice(0, colon)).get(prefixed.slice(colon + 1))).toEqual(value);
    }
    await store.close();

    const [backup] = await backups();
    expect(backup).toBeDefined();
    const backupFile = path.join(dir, backup as string);
    expect(legacyRows(backupFile)).toEqual(before);
    expect(log.lines.find((line) => line.backup === backupFile)?.msg).toContain(backupFile);

    const db = new Database(file, { readonly: true });
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all();
    expect(tables).not.toContain('keyv');
    expect(db.prepare("SELECT value FROM store_meta WHERE name = 'schema'").pluck().get()).toBe('1');
    expect(db.prepare('SELECT count(*) FROM entries').pluck().get()).toBe(before.size);
    db.close();
  });

  it('gives migrated entries their index positions on the first indexed open', async () => {
    interface Entry {
      seq: number;
    }
    const bySession: NamespaceIndex<Entry> = {
      group: (key) => key.slice(0, key.lastIndexOf(':')),
      order: (_key, entry) => entry.seq,
    };
    const store = await open();
    const transcripts = store.namespace<Entry>('transcripts', { index: bySession });
    const page = await transcripts.page({ group: 'f656369b-165e-4146-b991-84ac37bfedd6', limit: 10 });
    expect(page.entries.map((entry) => [entry.key, entry.order])).toEqual([
      ['f656369b-165e-4146-b991-84ac37bfedd6:3', 3],
      ['f656369b-165e-4146-b991-84ac37bfedd6:2', 2],
      ['f656369b-165e-4146-b991-84ac37bfedd6:1', 1],
      ['f656369b-165e-4146-b991-84ac37bfedd6:0', 0],
    ]);
    await store.close();
  });

  it('leaves a file already at layout 1 untouched', async () => {
    await (await open()).close();
    const digest = async () =>
      createHash('sha256')
        .update(await readFile(file))
        .digest('hex');
    const migrated = await digest();
    const store = await open();
    expect(await store.namespace('toolpack-scheduler').get('schedules')).toEqual({
      list: [{ id: 'daily', cron: '0 9 * * *' }],
    });
    await store.close();
    expect(await backups()).toHaveLength(1);
    expect(await digest()).toBe(migrated);
  });

  it('reads keyv’s escapes (a string starting with “:”) and drops expired rows', async () => {
    const db = new Database(file);
    db.prepare('INSERT INTO keyv (key, value) VALUES (?, ?)').run(
      'notes:smile',
      '{"value":{"text":"::) hi"}}',
    );
    db.prepare('INSERT INTO keyv (key, value) VALUES (?, ?)').run('notes:old', '{"value":1,"expires":1000}');
    db.prepare('INSERT INTO keyv (key, value) VALUES (?, ?)').run('no-namespace', '{"value":1}');
    db.close();
    const store = await open();
    expect(await store.namespace('notes').get('smile')).toEqual({ text: ':) hi' });
    expect(await store.namespace('notes').get('old')).toBeUndefined();
    await store.close();
  });

  it('fails the start with STORE_MIGRATION_FAILED naming the file and the backup, leaving the file intact', async () => {
    // A table in the way of the conversion (as a half-made file might have).
    const db = new Database(file);
    db.exec('CREATE TABLE entries (other TEXT)');
    db.close();
    const before = legacyRows(file);
    const error = await open().catch((e) => e);
    expect(error.code).toBe('STORE_MIGRATION_FAILED');
    const [backup] = await backups();
    expect(error.message).toContain(file);
    expect(error.message).toContain(path.join(dir, backup as string));
    expect(legacyRows(file)).toEqual(before);
    expect(legacyRows(path.join(dir, backup as string))).toEqual(before);
  });

  it('refuses a file of a newer layout, unchanged', async () => {
    const db = new Database(file);
    db.exec(
      "DROP TABLE keyv; CREATE TABLE store_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO store_meta VALUES ('schema', '2')",
    );
    db.close();
    const error = await open().catch((e) => e);
    expect(error.code).toBe('STORE_MIGRATION_FAILED');
    expect(error.message).toContain(file);
    expect(error.message).toContain('newer');
  });
});

describe('a gateway started on a store file of the current release', () => {
  it('migrates it at start and serves its sessions and transcripts', async () => {
    await mkdir(path.join(dir, 'data'));
    await copyFile(FIXTURE, path.join(dir, 'data/switchboard.sqlite'));
    const gateway = await startTestGateway({ dir });
    try {
      expect(gateway.logLines.join('')).toContain('.v0-backup-');
      const listed = await gateway.request('GET', '/api/sessions');
      expect(listed.body.sessions.map((session: { key: string }) => session.key)).toEqual(
        expect.arrayContaining(['agent:main:webchat:direct:alice', 'agent:main:webchat:direct:bob']),
      );
      // alice's session after her /new keeps its transcript; what comes next is appended after it (the
      // fixture's queued sub-agent is recovered at start and announced into it first).
      await gateway.send('back again', 'alice');
      const transcript = await gateway.request(
        'GET',
        '/api/sessions/agent:main:webchat:direct:alice/transcript',
      );
      const entries: { seq: number; text: string }[] = transcript.body.entries;
      expect(entries.map((entry) => entry.seq)).toEqual(entries.map((_, index) => index));
      expect(entries.slice(0, 2).map((entry) => entry.text)).toEqual([
        'after the reset',
        expect.stringContaining('No model is configured'),
      ]);
      expect(entries.slice(-2).map((entry) => entry.text)).toEqual([
        'back again',
        expect.stringContaining('No model is configured'),
      ]);
    } finally {
      await gateway.stop();
    }
  });
});
