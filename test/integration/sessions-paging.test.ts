import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import { createSubagentRegistry, type SubagentRun } from '../../src/engine/subagents/index.js';
import {
  createSessionStore,
  type SessionRecord,
  type SessionStore,
} from '../../src/records/sessions/index.js';
import { createStore, type Store } from '../../src/records/store/index.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';
import { REPO_ROOT } from '../helpers/process.js';
import { recordingStore, valuesRead } from '../helpers/recording-store.js';
import { startRedisServer } from '../helpers/redis-server.js';

const { logger } = createLogger({ level: 'silent' });
const route = { channel: 'webchat', chatType: 'direct', chatId: 'local' } as const;

/** A store of one kind that can be reopened, as a restarted gateway opens its file again. */
interface StoreRig {
  open(): Promise<Store>;
  dispose(): Promise<void>;
}

async function memoryRig(): Promise<StoreRig> {
  const store = await createStore({ url: 'memory://', stateDir: '.', logger });
  // memory:// lives as long as the object: a "restart" keeps it and makes a new session store.
  return { open: async () => store, dispose: () => store.close() };
}

/** A SQLite file in a temp dir (a copy of `from` when given); `open` closes the last store first. */
async function sqliteRig(from?: string): Promise<StoreRig> {
  const dir = await makeTempDir('switchboard-sessions-');
  const file = path.join(dir, 'switchboard.sqlite');
  if (from) await copyFile(from, file);
  let current: Store | undefined;
  return {
    async open() {
      await current?.close();
      current = await createStore({ url: `sqlite://${file}`, stateDir: dir, logger });
      return current;
    },
    async dispose() {
      await current?.close();
      await removeDir(dir);
    },
  };
}

/** A redis-server of its own (no persistence); `open` closes the last store first. */
async function redisRig(): Promise<StoreRig> {
  const server = await startRedisServer();
  let current: Store | undefined;
  return {
    async open() {
      await current?.close();
      current = await createStore({ url: server.url, stateDir: '.', logger });
      return current;
    },
    async dispose() {
      await current?.close();
      await server.stop();
    },
  };
}

const rigs: [string, () => Promise<StoreRig>][] = [
  ['memory', memoryRig],
  ['SQLite', () => sqliteRig()],
  ['Redis', redisRig],
];

/** A clock that moves 1 ms per reading, so that every write has its own time. */
function steppingClock(start = Date.parse('2026-01-01T00:00:00.000Z')) {
  let at = start;
  return () => new Date(at++);
}

describe.each(rigs)('sessions on %s', (_kind, makeRig) => {
  let rig: StoreRig | undefined;
  afterEach(async () => {
    await rig?.dispose();
    rig = undefined;
  });
  async function start(options: { cachedSessions?: number } = {}) {
    rig ??= await makeRig();
    const recorded = recordingStore(await rig.open());
    const sessions = createSessionStore({ store: recorded.store, now: steppingClock(), ...options });
    return { sessions, calls: recorded.calls };
  }
  async function seed(sessions: SessionStore, count: number, prefix = 'agent:main:webchat:direct:u') {
    for (let index = 0; index < count; index += 1) {
      await sessions.ensure(`${prefix}${index}`, { agentId: index % 3 === 0 ? 'ops' : 'main', route });
    }
  }

  it('appends with one entry write and one touch of the session, never rewriting the record', async () => {
    const { sessions, calls } = await start();
    await sessions.ensure('s', { agentId: 'main', route });
    const costOfAppend = async (text: string) => {
      const from = calls.length;
      await sessions.append('s', { role: 'user', text });
      return calls.slice(from).map(({ op, namespace }) => `${op} ${namespace}`);
    };
    const early = await costOfAppend('x');
    for (let index = 0; index < 300; index += 1) await sessions.append('s', { role: 'assistant', text: 'f' });
    const late = await costOfAppend('x');
    expect(early.sort()).toEqual(['set transcripts', 'touch sessions']);
    expect(late.sort()).toEqual(['set transcripts', 'touch sessions']);
    expect(await sessions.get('s')).toMatchObject({ transcriptLength: 302 });
  });

  it('after a restart, reads the length and last activity from the last entry', async () => {
    const before = await start();
    await before.sessions.ensure('s', { agentId: 'main', route });
    for (const text of ['one', 'two', 'three']) await before.sessions.append('s', { role: 'user', text });
    const expected = await before.sessions.get('s');
    const after = await start();
    const restored = await after.sessions.get('s');
    expect(restored).toEqual(expected);
    expect(restored?.transcriptLength).toBe(3);
    const next = await after.sessions.append('s', { role: 'assistant', text: 'four' });
    expect(next.seq).toBe(3);
    expect((await after.sessions.transcript('s')).map((entry) => entry.text)).toEqual([
      'one',
      'two',
      'three',
      'four',
    ]);
  });

  it('keeps appending in order when its record was evicted from the cache', async () => {
    const { sessions } = await start({ cachedSessions: 1 });
    await sessions.ensure('a', { agentId: 'main', route });
    await sessions.ensure('b', { agentId: 'main', route });
    for (let round = 0; round < 3; round += 1) {
      await sessions.append('a', { role: 'user', text: `a${round}` });
      await sessions.append('b', { role: 'user', text: `b${round}` });
    }
    expect((await sessions.transcript('a')).map((entry) => [entry.seq, entry.text])).toEqual([
      [0, 'a0'],
      [1, 'a1'],
      [2, 'a2'],
    ]);
    expect(await sessions.get('b')).toMatchObject({ transcriptLength: 3 });
  });

  it('reads only the last entries of a long transcript and pages back by seq', async () => {
    const { sessions, calls } = await start();
    await sessions.ensure('s', { agentId: 'main', route });
    for (let index = 0; index < 1500; index += 1)
      await sessions.append('s', { role: 'user', text: `m${index}` });
    let from = calls.length;
    const last = await sessions.transcript('s', { last: 200 });
    expect(last.map((entry) => entry.seq)).toEqual(Array.from({ length: 200 }, (_, index) => 1300 + index));
    expect(valuesRead(calls, 'transcripts', from)).toBe(200);
    from = calls.length;
    const older = await sessions.transcript('s', { last: 200, before: 1300 });
    expect(older.map((entry) => entry.seq)).toEqual(Array.from({ length: 200 }, (_, index) => 1100 + index));
    expect(valuesRead(calls, 'transcripts', from)).toBe(200);
    expect((await sessions.transcript('s', { last: 5, before: 3 })).map((entry) => entry.seq)).toEqual([
      0, 1, 2,
    ]);
    expect(await sessions.transcript('s', { last: 0 })).toEqual([]);
    expect(await sessions.transcript('s', { before: 0 })).toEqual([]);
    const whole = await sessions.transcript('s');
    expect(whole.map((entry) => entry.seq)).toEqual(Array.from({ length: 1500 }, (_, index) => index));
    expect(await sessions.transcript('unknown', { last: 10 })).toEqual([]);
  });

  it('lists a page newest first, pages on with the cursor, and moves a session up when it is active', async () => {
    const { sessions, calls } = await start();
    await seed(sessions, 250);
    const from = calls.length;
    const first = await sessions.list({ limit: 100 });
    expect(valuesRead(calls, 'sessions', from)).toBe(100);
    expect(first.sessions[0]?.key).toBe('agent:main:webchat:direct:u249');
    const seen: SessionRecord[] = [...first.sessions];
    let cursor = first.next;
    while (cursor) {
      const page = await sessions.list({ limit: 100, cursor });
      seen.push(...page.sessions);
      cursor = page.next;
    }
    expect(seen.map((record) => record.key)).toEqual(
      Array.from({ length: 250 }, (_, index) => `agent:main:webchat:direct:u${249 - index}`),
    );
    await sessions.append('agent:main:webchat:direct:u7', { role: 'user', text: 'back again' });
    const top = (await sessions.list({ limit: 1 })).sessions[0];
    expect(top).toMatchObject({ key: 'agent:main:webchat:direct:u7', transcriptLength: 1 });
    expect(top?.lastActivityAt).toBe((await sessions.get('agent:main:webchat:direct:u7'))?.lastActivityAt);
  });

  it('lists what a filter accepts across pages, and a restarted store lists current records', async () => {
    const before = await start();
    await seed(before.sessions, 450);
    await before.sessions.append('agent:main:webchat:direct:u3', { role: 'user', text: 'ops talks' });
    const after = await start();
    const from = after.calls.length;
    const ops = await after.sessions.list({ limit: 3, where: (session) => session.agentId === 'ops' });
    // One page of the list was read for three matches (sessions_list, posts), not all 450 sessions.
    expect(valuesRead(after.calls, 'sessions', from)).toBeLessThanOrEqual(200);
    expect(ops.sessions.map((record) => record.key)).toEqual([
      'agent:main:webchat:direct:u3',
      'agent:main:webchat:direct:u447',
      'agent:main:webchat:direct:u444',
    ]);
    expect(ops.sessions[0]).toMatchObject({ transcriptLength: 1 });
    const rest = await after.sessions.list({
      limit: 1000,
      where: (session) => session.agentId === 'ops',
      ...(ops.next ? { cursor: ops.next } : {}),
    });
    expect(rest.sessions).toHaveLength(147);
    expect(rest.next).toBeUndefined();
    expect((await after.sessions.list({ limit: 1, where: () => false })).sessions).toEqual([]);
  });

  it('remembers a key without a session, and forgets it when the session is made', async () => {
    const { sessions, calls } = await start();
    const readsOf = (key: string) =>
      calls.filter((call) => call.op === 'get' && call.namespace === 'sessions' && call.key === key).length;
    expect(await sessions.get('nobody')).toBeUndefined();
    expect(await sessions.get('nobody')).toBeUndefined();
    expect(await sessions.transcript('nobody', { last: 5 })).toEqual([]);
    expect(readsOf('nobody')).toBe(1);
    // A read racing the session's creation never leaves the key remembered as missing.
    const [, created, raced] = await Promise.all([
      sessions.get('racer'),
      sessions.ensure('racer', { agentId: 'main', route }),
      sessions.get('racer'),
    ]);
    expect(raced).toEqual(created);
    expect(await sessions.get('racer')).toEqual(created);
    await sessions.ensure('nobody', { agentId: 'main', route });
    expect(await sessions.get('nobody')).toMatchObject({ key: 'nobody', transcriptLength: 0 });
  });

  it('refuses a list cursor it did not make and limits out of range (bugs in the caller)', async () => {
    const { sessions } = await start();
    await expect(sessions.list({ limit: 1, cursor: 'nope' })).rejects.toThrow(/bad cursor/);
    await expect(sessions.list({ limit: 0 })).rejects.toThrow(/limit 0/);
    await expect(sessions.list({ limit: 1001 })).rejects.toThrow(/limit 1001/);
    await expect(sessions.transcript('s', { last: -1 })).resolves.toEqual([]);
  });
});

describe.each(rigs)('the sub-agent registry on %s', (_kind, makeRig) => {
  const run = (id: string, requester: string, startedAt: number): SubagentRun => ({
    subagentRunId: id,
    childSessionKey: `agent:main:subagent:${id}`,
    requesterSessionKey: requester,
    label: id,
    task: 'look it up',
    agentId: 'main',
    model: 'default',
    depth: 1,
    status: 'running',
    startedAt,
  });

  it('lists a requester its runs oldest first from the index, after a restart too', async () => {
    const rig = await makeRig();
    try {
      const recorded = recordingStore(await rig.open());
      const registry = createSubagentRegistry({ store: recorded.store });
      // Started out of id order, so that the list order is the start time's.
      for (const [id, at] of [
        ['r3', 1000],
        ['r1', 3000],
        ['r2', 2000],
      ] as const)
        await registry.add(run(id, 'agent:main:webchat:direct:alice', at));
      await registry.add(run('other', 'agent:main:webchat:direct:bob', 1500));
      await registry.update({ ...run('r1', 'agent:main:webchat:direct:alice', 3000), status: 'done' });
      expect(
        (await registry.byRequester('agent:main:webchat:direct:alice')).map((found) => found.subagentRunId),
      ).toEqual(['r3', 'r2', 'r1']);
      expect(recorded.calls.some((call) => call.namespace === 'subagent-children')).toBe(false);
      const reopened = createSubagentRegistry({ store: await rig.open() });
      const listed = await reopened.byRequester('agent:main:webchat:direct:alice');
      expect(listed.map((found) => [found.subagentRunId, found.status])).toEqual([
        ['r3', 'running'],
        ['r2', 'running'],
        ['r1', 'done'],
      ]);
      expect(await reopened.byRequester('agent:main:webchat:direct:nobody')).toEqual([]);
      expect((await reopened.active()).map((found) => found.subagentRunId).sort()).toEqual([
        'other',
        'r2',
        'r3',
      ]);
    } finally {
      await rig.dispose();
    }
  });
});

describe('sessions in a store file written by the release before (test/fixtures/store-v0)', () => {
  const ALICE = 'agent:main:webchat:direct:alice';
  const BOB = 'agent:main:webchat:direct:bob';

  it('lists, reads, appends to and pages its sessions, transcripts and sub-agent runs', async () => {
    const rig = await sqliteRig(path.join(REPO_ROOT, 'test/fixtures/store-v0/switchboard.sqlite'));
    try {
      const store = await rig.open();
      const sessions = createSessionStore({ store });
      const listed = await sessions.list({ limit: 10 });
      expect(listed.sessions.map((record) => [record.key, record.transcriptLength])).toEqual([
        [ALICE, 2],
        [BOB, 2],
      ]);
      expect(listed.next).toBeUndefined();
      // Alice's current session is the one after her /new; the old transcript stays in the store.
      expect((await sessions.transcript(ALICE)).map((entry) => [entry.seq, entry.role, entry.text])).toEqual([
        [0, 'user', 'after the reset'],
        [1, 'assistant', expect.stringContaining('No model is configured')],
      ]);
      expect((await sessions.transcript(BOB, { last: 1 })).map((entry) => entry.seq)).toEqual([1]);
      const appended = await sessions.append(BOB, { role: 'user', text: 'bob is back' });
      expect(appended.seq).toBe(2);
      expect((await sessions.list({ limit: 1 })).sessions[0]).toMatchObject({
        key: BOB,
        transcriptLength: 3,
      });
      const registry = createSubagentRegistry({ store });
      expect((await registry.byRequester(ALICE)).map((run) => [run.subagentRunId, run.status])).toEqual([
        ['sub-run-1', 'done'],
        ['sub-run-2', 'queued'],
      ]);

      const reopened = createSessionStore({ store: await rig.open() });
      expect(await reopened.get(BOB)).toMatchObject({ transcriptLength: 3, lastActivityAt: appended.at });
      expect((await reopened.list({ limit: 10 })).sessions.map((record) => record.key)).toEqual([BOB, ALICE]);
    } finally {
      await rig.dispose();
    }
  });
});
