import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/base/config/index.js';
import { createLogger } from '../../src/base/logging/index.js';
import {
  createSubagentManager,
  createSubagentRegistry,
  type SubagentRegistry,
  type SubagentRun,
} from '../../src/engine/subagents/index.js';
import type { SubagentCaller } from '../../src/engine/tools/index.js';
import { createRunStore, createSessionStore } from '../../src/records/sessions/index.js';
import { createStore, type Store } from '../../src/records/store/index.js';
import { createFakeTurns, type FakeTurn } from '../fakes/fake-subagent-turns.js';
import { gate, parseAnnouncement } from '../fakes/subagent-script.js';

/**
 * The sub-agent manager in-process: the real registry, session and run stores on a memory store,
 * and a fake turn port whose turns the test ends by hand (no router, no model, no HTTP). Each
 * interleaving is forced by the order in which the test ends turns, kills and steers.
 */

const PARENT = 'agent:main:webchat:direct:local';
const caller = { sessionKey: PARENT, agentId: 'main', runId: 'parent-run' };
const { logger } = createLogger({ level: 'silent', destination: { write: () => {} } });
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

interface SetupOptions {
  subagents?: Record<string, unknown>;
  /** The same store as an earlier setup: a restart after the last process died. */
  store?: Store;
  /** Holds the write of a run's end until `endWrite.hold` opens. */
  holdEndWrite?: boolean;
  now?: () => number;
  /** Config merged over the default (one model, `fake`, for agent main). */
  config?: Record<string, unknown>;
}

async function setup(options: SetupOptions = {}) {
  const checked = validateConfig({
    models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: 'http://127.0.0.1:9', apiKey: 'sk-x' } },
    agents: { main: { model: 'fake' } },
    gateway: { drainTimeoutMs: 50 },
    ...(options.subagents ? { subagents: options.subagents } : {}),
    ...options.config,
  });
  if (!checked.ok) throw new Error(JSON.stringify(checked.error));
  const store = options.store ?? (await createStore({ url: 'memory://', stateDir: '/nonexistent', logger }));
  const sessions = createSessionStore({ store });
  const runs = createRunStore({ store });
  const fake = createFakeTurns(runs);
  const endWrite = { hold: gate(), entered: gate() };
  const real = createSubagentRegistry({ store });
  const registry: SubagentRegistry = {
    ...real,
    async update(run) {
      if (options.holdEndWrite && run.status !== 'queued' && run.status !== 'running') {
        endWrite.entered.open(undefined);
        await endWrite.hold.promise;
      }
      await real.update(run);
    },
  };
  const manager = createSubagentManager({
    config: checked.value,
    registry,
    sessions,
    runs,
    turns: fake.port,
    store,
    logger,
    ...(options.now ? { now: options.now } : {}),
  });
  await sessions.ensure(PARENT, {
    agentId: 'main',
    route: { channel: 'webchat', chatType: 'direct', chatId: 'local' },
  });
  let closed = false;
  closers.push(async () => {
    if (closed) return;
    endWrite.hold.open(undefined);
    // Every turn ends, also those the ends start (announcements), until the manager has closed.
    let finished = false;
    const closing = manager.close().then(() => {
      finished = true;
    });
    while (!finished) {
      for (const turn of fake.turns) if (!turn.ended) await fake.end(turn);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await closing;
  });
  return {
    store,
    manager,
    registry,
    fake,
    endWrite,
    /** The process dies: nothing of this manager runs on (its held writes never happen). */
    crash() {
      closed = true;
    },
    async spawn(task: string, label?: string, from: SubagentCaller = caller): Promise<SubagentRun> {
      const spawned = await manager.spawn(from, { task, ...(label === undefined ? {} : { label }) });
      if (!spawned.ok) throw new Error(spawned.error);
      const run = await registry.get(spawned.value.subagentRunId);
      if (!run) throw new Error('spawned run not recorded');
      return run;
    },
    /** The `index`-th announcement turn started in the parent chat, parsed. */
    async announcement(index = 0) {
      const turn = await fake.turnIn(PARENT, index);
      return parseAnnouncement(turn.request.entry.text);
    },
    pendingAnnouncements: async () => {
      const found: unknown[] = [];
      for await (const entry of store.namespace('subagent-announcements').entries()) found.push(entry);
      return found;
    },
  };
}

type Setup = Awaited<ReturnType<typeof setup>>;
const childTurn = (rig: Setup, run: SubagentRun, index = 0): Promise<FakeTurn> =>
  rig.fake.turnIn(run.childSessionKey, index);

/** Agent main does not resume what a restart cut short (`agents.main.resume`). */
const NO_RESUME = { agents: { main: { model: 'fake', resume: 'off' } } };

describe('the model of a child', () => {
  it("keeps its agent's model chain without a model in the request, and takes the one it names", async () => {
    const fake = { provider: 'openai', model: 'fake-1', baseUrl: 'http://127.0.0.1:9', apiKey: 'sk-x' };
    const rig = await setup({
      config: {
        models: { fake, spare: { ...fake, model: 'fake-2' } },
        agents: { main: { model: ['fake', 'spare'] } },
      },
    });
    const run = await rig.spawn('with fallbacks');
    expect(run).toMatchObject({ model: 'fake', models: ['fake', 'spare'] });
    expect((await childTurn(rig, run)).request.agentOverrides).toEqual({ model: ['fake', 'spare'] });
    const named = await rig.manager.spawn(caller, { task: 'on spare', model: 'spare' });
    if (!named.ok) throw new Error(named.error);
    const namedRun = await rig.registry.get(named.value.subagentRunId);
    expect(namedRun).toMatchObject({ model: 'spare' });
    expect(namedRun?.models).toBeUndefined();
    expect((await rig.fake.turnIn(named.value.childSessionKey, 0)).request.agentOverrides).toEqual({
      model: 'spare',
    });
  });
});

describe('spawn and complete', () => {
  it('runs the task in the child session, records the end and announces it to the parent once', async () => {
    const rig = await setup();
    const run = await rig.spawn('count the files', 'counter');
    expect(run).toMatchObject({ status: 'queued', label: 'counter', depth: 1, parentRunId: 'parent-run' });
    const turn = await childTurn(rig, run);
    expect(turn.request).toMatchObject({
      sessionKey: run.childSessionKey,
      entry: { role: 'user', text: 'count the files', senderId: `session:${PARENT}` },
      agentOverrides: { model: 'fake' },
      depth: 1,
    });
    await rig.fake.end(turn, '12 files');

    expect(await rig.announcement()).toMatchObject({
      status: 'success',
      label: 'counter',
      result: '12 files',
      stats: { rounds: 2, toolCalls: 3 },
      runId: run.subagentRunId,
    });
    expect(await rig.registry.get(run.subagentRunId)).toMatchObject({
      status: 'done',
      outcome: { status: 'success', result: '12 files', rounds: 2, toolCalls: 3 },
    });
    expect(await rig.pendingAnnouncements()).toHaveLength(1);
    // The parent's turn that answers the announcement ends: it is cleared.
    await rig.fake.end(await rig.fake.turnIn(PARENT), 'noted');
    await expect.poll(() => rig.pendingAnnouncements()).toEqual([]);
  });

  it('announces an error and a timeout with the reason; a NO_REPLY end is not announced', async () => {
    const rig = await setup();
    const failing = await rig.spawn('fail', 'failing');
    await rig.fake.end(await childTurn(rig, failing), undefined, 'error');
    expect(await rig.announcement(0)).toMatchObject({ status: 'error', error: 'error', result: '' });
    const silent = await rig.spawn('be quiet', 'silent');
    await rig.fake.end(await childTurn(rig, silent), 'NO_REPLY');
    await expect.poll(async () => (await rig.registry.get(silent.subagentRunId))?.status).toBe('done');
    expect(rig.fake.turns.filter((turn) => turn.request.sessionKey === PARENT)).toHaveLength(1);
  });

  it('does not announce a run spawned with announce false, nor a run of an agent whose announce is false', async () => {
    const rig = await setup({
      config: { agents: { main: { model: 'fake' }, quiet: { model: 'fake', announce: false } } },
      subagents: { allowAgents: ['quiet'] },
    });
    const spawned = await rig.manager.spawn(caller, { task: 'unheard', announce: false });
    const byAgent = await rig.manager.spawn(caller, { task: 'quiet agent', agentId: 'quiet' });
    const asked = await rig.manager.spawn(caller, { task: 'asked for', agentId: 'quiet', announce: true });
    for (const result of [spawned, byAgent, asked]) {
      if (!result.ok) throw new Error(result.error);
      const run = await rig.registry.get(result.value.subagentRunId);
      if (!run) throw new Error('not recorded');
      await rig.fake.end(await childTurn(rig, run), `result of ${run.task}`);
      await expect.poll(async () => (await rig.registry.get(run.subagentRunId))?.status).toBe('done');
    }
    // Only the spawn that asked for it is announced; the others' results stay in the list.
    expect(rig.fake.turns.filter((turn) => turn.request.sessionKey === PARENT)).toHaveLength(1);
    expect((await rig.announcement()).result).toBe('result of asked for');
    expect((await rig.manager.runs(PARENT)).map((run) => run.outcome?.result)).toEqual([
      'result of unheard',
      'result of quiet agent',
      'result of asked for',
    ]);
  });

  it("charges the child's turns and its announcement to the user who spawned it, after a restart too", async () => {
    const first = await setup({ subagents: { maxConcurrent: 1 } });
    const bob = { ...caller, chargedTo: 'slack:UBOB' };
    const running = await first.spawn('running', undefined, bob);
    const waiting = await first.spawn('waiting', undefined, bob);
    expect((await childTurn(first, running)).request.chargedTo).toBe('slack:UBOB');
    first.crash();

    // Not resumed (`resume: "off"`): its `interrupted` announcement is what is charged here.
    const second = await setup({ store: first.store, subagents: { maxConcurrent: 1 }, config: NO_RESUME });
    await second.manager.resume();
    expect((await second.fake.turnIn(PARENT)).request).toMatchObject({
      senderId: 'system:subagents',
      chargedTo: 'slack:UBOB',
    });
    expect((await childTurn(second, waiting)).request.chargedTo).toBe('slack:UBOB');
  });

  it('refuses a spawn past a limit, naming it', async () => {
    const rig = await setup({ subagents: { maxChildrenPerSession: 1 } });
    await rig.spawn('one');
    expect(await rig.manager.spawn(caller, { task: 'two' })).toEqual({
      ok: false,
      error: expect.stringContaining('subagents.maxChildrenPerSession is 1'),
    });
    const child = (await rig.manager.runs(PARENT))[0] as SubagentRun;
    expect(
      await rig.manager.spawn({ sessionKey: child.childSessionKey, agentId: 'main' }, { task: 'x' }),
    ).toEqual({
      ok: false,
      error: expect.stringContaining('subagents.maxSpawnDepth is 1'),
    });
  });

  it('with maxConcurrent 1 the second child waits, queued, and starts when the first ends', async () => {
    const rig = await setup({ subagents: { maxConcurrent: 1 } });
    const first = await rig.spawn('first');
    const second = await rig.spawn('second');
    const turn = await childTurn(rig, first);
    await expect.poll(async () => (await rig.registry.get(first.subagentRunId))?.status).toBe('running');
    expect((await rig.registry.get(second.subagentRunId))?.status).toBe('queued');
    expect(rig.fake.openIn(second.childSessionKey)).toBeUndefined();
    await rig.fake.end(turn, 'done first');
    expect((await childTurn(rig, second)).request.entry.text).toBe('second');
  });

  it('lists runs in spawn order when spawns share a millisecond (the list is by start time)', async () => {
    const rig = await setup({ now: () => 1_764_590_000_000 });
    const labels = ['one', 'two', 'three', 'four', 'five'];
    for (const label of labels) await rig.spawn(`task ${label}`, label);
    const listed = await rig.manager.runs(PARENT);
    expect(listed.map((run) => run.label)).toEqual(labels);
    expect(new Set(listed.map((run) => run.startedAt)).size).toBe(labels.length);
  });
});

describe('kill', () => {
  it('stops a running child: killed, without a result, announced once', async () => {
    const rig = await setup();
    const run = await rig.spawn('work', 'worker');
    await childTurn(rig, run);
    await expect.poll(async () => (await rig.registry.get(run.subagentRunId))?.status).toBe('running');
    const killed = await rig.manager.kill(run);
    expect(killed.map((dead) => dead.subagentRunId)).toEqual([run.subagentRunId]);
    expect(rig.fake.stops).toEqual([{ sessionKey: run.childSessionKey, reason: 'killed by its requester' }]);
    expect(rig.fake.cleared).toEqual([run.childSessionKey]);
    expect(await rig.announcement()).toMatchObject({
      status: 'killed',
      result: '',
      runId: run.subagentRunId,
    });
    expect(await rig.registry.get(run.subagentRunId)).toMatchObject({
      status: 'killed',
      outcome: { status: 'killed' },
    });
    // Killing it again finds nothing to kill.
    expect(await rig.manager.kill(run)).toEqual([]);
  });

  it('a child waiting for a slot never starts; it is announced killed once', async () => {
    const rig = await setup({ subagents: { maxConcurrent: 1 } });
    const first = await rig.spawn('first');
    const waiting = await rig.spawn('second', 'waiting');
    expect((await rig.manager.kill(waiting)).map((dead) => dead.subagentRunId)).toEqual([
      waiting.subagentRunId,
    ]);
    expect(await rig.announcement()).toMatchObject({ status: 'killed', runId: waiting.subagentRunId });
    await rig.fake.end(await childTurn(rig, first), 'first done');
    expect(await rig.announcement(1)).toMatchObject({ status: 'success', runId: first.subagentRunId });
    expect(rig.fake.turns.some((turn) => turn.request.sessionKey === waiting.childSessionKey)).toBe(false);
  });

  it('kills the descendants too; only the run asked for is announced', async () => {
    const rig = await setup({ subagents: { maxSpawnDepth: 2 } });
    const child = await rig.spawn('delegate', 'child');
    await childTurn(rig, child);
    const grandchild = await rig.spawn('deep work', 'grandchild', {
      sessionKey: child.childSessionKey,
      agentId: 'main',
      runId: 'child-run',
    });
    await childTurn(rig, grandchild);
    const killed = await rig.manager.kill(child);
    expect(killed.map((dead) => dead.label)).toEqual(['child', 'grandchild']);
    expect(await rig.announcement()).toMatchObject({ status: 'killed', runId: child.subagentRunId });
    await expect.poll(async () => (await rig.registry.get(grandchild.subagentRunId))?.status).toBe('killed');
    // Nobody hears the grandchild: no steer into the child session, no second announcement.
    expect(rig.fake.turns.filter((turn) => turn.request.sessionKey === PARENT)).toHaveLength(1);
    expect(rig.fake.turns.filter((turn) => turn.request.sessionKey === child.childSessionKey)).toHaveLength(
      1,
    );
  });
});

describe('a kill racing a child that completes', () => {
  it('before the end is decided (the turn ended, its steer not yet answered): killed everywhere', async () => {
    const rig = await setup();
    rig.fake.options.steersJoin = false;
    const run = await rig.spawn('count', 'counter');
    const turn = await childTurn(rig, run);
    await expect.poll(async () => (await rig.registry.get(run.subagentRunId))?.status).toBe('running');
    await rig.manager.steer(caller, run, 'also this');
    await rig.fake.end(turn, 'partial');
    // The run waits for its steered turn: a kill now decides it.
    expect(await rig.manager.kill(run)).toHaveLength(1);
    expect(await rig.announcement()).toMatchObject({ status: 'killed', result: '' });
  });

  it('after the end is decided: the kill skips it; success with its result everywhere', async () => {
    const rig = await setup({ holdEndWrite: true });
    const run = await rig.spawn('count', 'counter');
    await rig.fake.end(await childTurn(rig, run), '12 files');
    await rig.endWrite.entered.promise;
    expect(await rig.manager.kill(run)).toEqual([]);
    expect(rig.fake.stops).toEqual([]);
    rig.endWrite.hold.open(undefined);
    expect(await rig.announcement()).toMatchObject({ status: 'success', result: '12 files' });
    expect(await rig.registry.get(run.subagentRunId)).toMatchObject({ status: 'done' });
  });
});

describe('steer', () => {
  it('a running child takes the message into its turn', async () => {
    const rig = await setup();
    const run = await rig.spawn('work');
    const turn = await childTurn(rig, run);
    await expect.poll(async () => (await rig.registry.get(run.subagentRunId))?.status).toBe('running');
    expect(await rig.manager.steer(caller, run, 'focus on tests')).toEqual({
      ok: true,
      value: { mode: 'injected', subagentRunId: run.subagentRunId },
    });
    expect(turn.joined.map((steer) => [steer.mode, steer.entry.text])).toEqual([['steer', 'focus on tests']]);
    await rig.fake.end(turn, 'tests done');
    expect(await rig.announcement()).toMatchObject({ status: 'success', result: 'tests done' });
  });

  it('a steer that comes as the child gives its final answer runs a turn of its own, and its answer is announced', async () => {
    const rig = await setup();
    rig.fake.options.steersJoin = false;
    const run = await rig.spawn('work');
    const turn = await childTurn(rig, run);
    await expect.poll(async () => (await rig.registry.get(run.subagentRunId))?.status).toBe('running');
    await rig.manager.steer(caller, run, 'one more thing');
    await rig.fake.end(turn, 'first answer');
    await rig.fake.end(await childTurn(rig, run, 1), 'answer to the steer');
    expect(await rig.announcement()).toMatchObject({ status: 'success', result: 'answer to the steer' });
  });

  it('a waiting child gets the message with its task, also after a restart', async () => {
    const rig = await setup({ subagents: { maxConcurrent: 1 } });
    const first = await rig.spawn('first');
    const waiting = await rig.spawn('second');
    expect(await rig.manager.steer(caller, waiting, 'and this')).toMatchObject({
      ok: true,
      value: { mode: 'injected' },
    });
    expect((await rig.registry.get(waiting.subagentRunId))?.steers).toEqual(['and this']);
    await rig.fake.end(await childTurn(rig, first), 'ok');
    expect((await childTurn(rig, waiting)).request.entry.text).toBe('second\n\nand this');
    await expect.poll(async () => (await rig.registry.get(waiting.subagentRunId))?.steers).toBeUndefined();
  });

  it('an ended child restarts as a new run with the message, announced again', async () => {
    const rig = await setup();
    const run = await rig.spawn('work', 'worker');
    await rig.fake.end(await childTurn(rig, run), 'first');
    await rig.announcement(0);
    const steered = await rig.manager.steer(caller, run, 'again');
    if (!steered.ok) throw new Error(steered.error);
    expect(steered.value.mode).toBe('restarted');
    expect(steered.value.subagentRunId).not.toBe(run.subagentRunId);
    const turn = await childTurn(rig, run, 1);
    expect(turn.request.entry).toMatchObject({ role: 'user', text: 'again' });
    await rig.fake.end(turn, 'second');
    expect(await rig.announcement(1)).toMatchObject({
      result: 'second',
      runId: steered.value.subagentRunId,
      label: 'worker',
    });
  });

  it('an ended child restarted by another user’s steer is charged to that user', async () => {
    const rig = await setup();
    const run = await rig.spawn('work', 'worker', { ...caller, chargedTo: 'slack:UBOB' });
    await rig.fake.end(await childTurn(rig, run), 'first');
    await rig.announcement(0);
    const steered = await rig.manager.steer({ ...caller, chargedTo: 'slack:UCAROL' }, run, 'again');
    if (!steered.ok) throw new Error(steered.error);
    expect((await childTurn(rig, run, 1)).request.chargedTo).toBe('slack:UCAROL');
    expect(await rig.registry.get(steered.value.subagentRunId)).toMatchObject({ chargedTo: 'slack:UCAROL' });
  });

  it('refuses a steer of itself and one within 2 seconds of the last', async () => {
    let clock = 1_000_000;
    const rig = await setup({ now: () => clock });
    const run = await rig.spawn('work');
    const self = { sessionKey: run.childSessionKey, agentId: 'main' };
    expect(await rig.manager.steer(self, run, 'x')).toEqual({
      ok: false,
      error: 'A sub-agent cannot steer itself.',
    });
    expect((await rig.manager.steer(caller, run, 'one')).ok).toBe(true);
    clock += 1999;
    expect(await rig.manager.steer(caller, run, 'two')).toEqual({
      ok: false,
      error: 'Steered too recently: wait 2 seconds between messages to one sub-agent.',
    });
    clock += 1;
    expect((await rig.manager.steer(caller, run, 'three')).ok).toBe(true);
  });

  it('a grandchild’s end reaches its running parent sub-agent like a steer', async () => {
    const rig = await setup({ subagents: { maxSpawnDepth: 2 } });
    const child = await rig.spawn('delegate', 'child');
    const childsTurn = await childTurn(rig, child);
    await expect.poll(async () => (await rig.registry.get(child.subagentRunId))?.status).toBe('running');
    const grandchild = await rig.spawn('deep', 'grandchild', {
      sessionKey: child.childSessionKey,
      agentId: 'main',
    });
    await rig.fake.end(await childTurn(rig, grandchild), 'deep result');
    await expect.poll(() => childsTurn.joined.length).toBe(1);
    expect(parseAnnouncement(childsTurn.joined[0]?.entry.text ?? '')).toMatchObject({
      status: 'success',
      result: 'deep result',
    });
    await rig.fake.end(childsTurn, 'combined');
    expect(await rig.announcement()).toMatchObject({ runId: child.subagentRunId, result: 'combined' });
  });
});

describe('resume after the process died', () => {
  it('with resume: "off", ends a run left running as interrupted (announced) and starts the one left waiting', async () => {
    const first = await setup({ subagents: { maxConcurrent: 1 } });
    const running = await first.spawn('running');
    const waiting = await first.spawn('waiting');
    await childTurn(first, running);
    first.crash();

    const second = await setup({ store: first.store, subagents: { maxConcurrent: 1 }, config: NO_RESUME });
    await second.manager.resume();
    expect(await second.registry.get(running.subagentRunId)).toMatchObject({ status: 'interrupted' });
    expect(await second.announcement()).toMatchObject({
      status: 'interrupted',
      runId: running.subagentRunId,
      error: 'A restart cut this run short and it was not resumed: agents.main.resume is "off".',
    });
    expect((await childTurn(second, waiting)).request.entry.text).toBe('waiting');
  });

  it('resumes a run left running: its turn starts again, charged as before, and it is announced once', async () => {
    const first = await setup({ subagents: { maxConcurrent: 1 } });
    const bob = { ...caller, chargedTo: 'slack:UBOB' };
    const running = await first.spawn('running', undefined, bob);
    const waiting = await first.spawn('waiting', undefined, bob);
    await childTurn(first, running);
    await expect.poll(async () => (await first.registry.get(running.subagentRunId))?.status).toBe('running');
    first.crash();

    const second = await setup({ store: first.store, subagents: { maxConcurrent: 1 } });
    await second.manager.resume();
    expect(await second.registry.get(running.subagentRunId)).toMatchObject({ status: 'running', resumes: 1 });
    // The fake turns write no transcript: the resumed turn starts on its task again.
    const again = await childTurn(second, running);
    expect(again.request).toMatchObject({ entry: { text: 'running' }, chargedTo: 'slack:UBOB' });
    expect(second.fake.openIn(waiting.childSessionKey)).toBeUndefined();
    await second.fake.end(again, 'done after all');
    expect(await second.announcement()).toMatchObject({
      status: 'success',
      result: 'done after all',
      runId: running.subagentRunId,
    });
    expect((await childTurn(second, waiting)).request.entry.text).toBe('waiting');
  });

  it('ends a run at its third interruption instead of resuming it again', async () => {
    let rig = await setup();
    const run = await rig.spawn('fragile');
    await childTurn(rig, run);
    await expect.poll(async () => (await rig.registry.get(run.subagentRunId))?.status).toBe('running');
    for (const resumes of [1, 2, 3]) {
      rig.crash();
      rig = await setup({ store: rig.store });
      await rig.manager.resume();
      if (resumes < 3) {
        expect(await rig.registry.get(run.subagentRunId)).toMatchObject({ status: 'running', resumes });
        await childTurn(rig, run);
      }
    }
    // Three attempts (its start and two resumes), as a turn gets.
    expect(await rig.registry.get(run.subagentRunId)).toMatchObject({ status: 'interrupted', resumes: 2 });
    expect(await rig.announcement()).toMatchObject({
      status: 'interrupted',
      runId: run.subagentRunId,
      error:
        'A restart cut this run short and it was not resumed: the gateway stopped each of the 3 times it ran.',
    });
  });

  it('answers a steer a running child was sent just before the process died: a new run takes it', async () => {
    const first = await setup();
    const run = await first.spawn('work', 'worker');
    await childTurn(first, run);
    await expect.poll(async () => (await first.registry.get(run.subagentRunId))?.status).toBe('running');
    expect(await first.manager.steer(caller, run, 'and this')).toMatchObject({
      ok: true,
      value: { mode: 'injected' },
    });
    first.crash();

    const second = await setup({ store: first.store });
    await second.manager.resume();
    expect(await second.registry.get(run.subagentRunId)).toMatchObject({ status: 'interrupted' });
    const turn = await childTurn(second, run);
    expect(turn.request.entry).toMatchObject({ role: 'user', text: 'and this' });
    await second.fake.end(turn, 'did this too');
    await expect
      .poll(async () => (await second.announcement(1).catch(() => undefined))?.result)
      .toBe('did this too');
  });

  it('completes a run whose announcement was stored but whose end was not written, announced once', async () => {
    const first = await setup({ holdEndWrite: true });
    const run = await first.spawn('count');
    await first.fake.end(await childTurn(first, run), '12 files');
    await first.endWrite.entered.promise;
    first.crash();

    const second = await setup({ store: first.store });
    await second.manager.resume();
    expect(await second.registry.get(run.subagentRunId)).toMatchObject({
      status: 'done',
      outcome: { result: '12 files' },
    });
    expect(await second.announcement()).toMatchObject({
      status: 'success',
      result: '12 files',
      runId: run.subagentRunId,
    });
    expect(second.fake.turns.filter((turn) => turn.request.sessionKey === PARENT)).toHaveLength(1);
  });
});

describe('close', () => {
  it('leaves a waiting child queued in the store, for the next start', async () => {
    const rig = await setup({ subagents: { maxConcurrent: 1 } });
    const first = await rig.spawn('first');
    const waiting = await rig.spawn('second');
    const turn = await childTurn(rig, first);
    const closed = rig.manager.close();
    await rig.fake.end(turn, 'done');
    // The run under way ends and is announced; close waits for the announcement turn.
    await rig.fake.end(await rig.fake.turnIn(PARENT), 'noted');
    await closed;
    expect((await rig.registry.get(waiting.subagentRunId))?.status).toBe('queued');
    expect((await rig.registry.get(first.subagentRunId))?.status).toBe('done');
  });
});

describe('the run registry on disk', () => {
  it('stores the sub-agent run id as `runId`, as records written before the rename have it', async () => {
    const rig = await setup();
    const run = await rig.spawn('work', 'worker');
    const stored = await rig.store.namespace<Record<string, unknown>>('subagent-runs').get(run.subagentRunId);
    expect(stored).toMatchObject({ runId: run.subagentRunId, label: 'worker' });
    expect(stored).not.toHaveProperty('subagentRunId');
    const old = { ...stored, runId: 'old-run', status: 'done' };
    await rig.store.namespace('subagent-runs').set('old-run', old);
    expect(await rig.registry.get('old-run')).toMatchObject({ subagentRunId: 'old-run', label: 'worker' });
  });
});
