import { describe, expect, it } from 'vitest';
import { clampRecentMinutes, runSubagentsAction } from '../../src/engine/subagents/actions.js';
import {
  isActiveSubagentRun,
  type SteerResult,
  type SubagentRun,
  type SubagentsService,
} from '../../src/engine/subagents/index.js';
import { buildSubagentList, formatRuntime } from '../../src/engine/subagents/list-view.js';
import { resolveSubagentTarget } from '../../src/engine/subagents/resolve-target.js';
import type { SubagentCaller } from '../../src/engine/tools/index.js';

const NOW = Date.UTC(2025, 0, 1, 12, 0, 0);
const MINUTE = 60_000;
const PARENT = 'agent:main:webchat:direct:local';
const caller: SubagentCaller = { sessionKey: PARENT, agentId: 'main', runId: 'parent-run' };
const window = { now: NOW, recentMinutes: 30 };

/** A run of child `child` started `startedAgo` minutes before NOW; `endedAgo` makes it ended. */
function run(
  runId: string,
  child: string,
  label: string,
  startedAgo: number,
  ended?: { ago: number; status?: SubagentRun['status'] },
  status: SubagentRun['status'] = 'running',
): SubagentRun {
  const startedAt = NOW - startedAgo * MINUTE;
  const base: SubagentRun = {
    subagentRunId: runId,
    childSessionKey: `agent:main:subagent:${child}`,
    requesterSessionKey: PARENT,
    label,
    task: `task of ${label}`,
    agentId: 'main',
    model: 'default',
    depth: 1,
    status,
    startedAt,
  };
  if (!ended) return base;
  const endedAt = NOW - ended.ago * MINUTE;
  return { ...base, status: ended.status ?? 'done', endedAt, runtimeMs: endedAt - startedAt };
}

/** An in-memory service: `runs` by requester, `kill` cascades through `descendants`. */
function fakeService(
  runsBySession: Record<string, SubagentRun[]>,
  options: { descendants?: Record<string, SubagentRun[]>; steer?: SteerResult } = {},
) {
  const calls = {
    runs: [] as string[],
    kill: [] as string[],
    steer: [] as { runId: string; message: string }[],
  };
  const service: SubagentsService = {
    spawn: async () => ({ ok: false, error: 'not used' }),
    async runs(sessionKey) {
      calls.runs.push(sessionKey);
      return runsBySession[sessionKey] ?? [];
    },
    async kill(target) {
      calls.kill.push(target.subagentRunId);
      return [target, ...(options.descendants?.[target.subagentRunId] ?? [])].filter(isActiveSubagentRun);
    },
    async steer(_caller, target, message) {
      calls.steer.push({ runId: target.subagentRunId, message });
      return options.steer ?? { ok: true, value: { mode: 'injected', subagentRunId: target.subagentRunId } };
    },
  };
  return { service, calls };
}

// Oldest first, as the registry returns them. Active: beta (started 5m ago), alpha (10m ago).
// Recent: gamma (ended 2m ago), delta (ended 20m ago). Old: epsilon (ended 90m ago).
const alpha = run('r-alpha', 'a', 'Alpha', 10);
const beta = run('r-beta', 'b', 'beta-report', 5, undefined, 'queued');
const gamma = run('r-gamma', 'c', 'gamma', 8, { ago: 2 });
const delta = run('r-delta', 'd', 'delta', 40, { ago: 20, status: 'error' });
const epsilon = run('x-eps', 'e', 'epsilon', 120, { ago: 90 });
const RUNS = [epsilon, delta, alpha, gamma, beta];

const resolve = (target: string, runs: SubagentRun[] = RUNS) => resolveSubagentTarget(runs, target, window);
const runIdOf = (result: ReturnType<typeof resolve>) =>
  result.ok ? result.value.subagentRunId : result.error;

describe('resolveSubagentTarget', () => {
  it('`last` is the most recently started child, whatever its status', () => {
    expect(runIdOf(resolve('last'))).toBe('r-beta');
    expect(resolve('last', [])).toEqual({ ok: false, error: 'Unknown target: last' });
  });

  it('an index counts active children first, then recent ones (most recently ended first)', () => {
    expect(['1', '2', '3', '4'].map((target) => runIdOf(resolve(target)))).toEqual([
      'r-beta',
      'r-alpha',
      'r-gamma',
      'r-delta',
    ]);
    expect(resolve('0')).toEqual({ ok: false, error: 'Invalid index: 0' });
    expect(resolve('5')).toEqual({ ok: false, error: 'Invalid index: 5' });
    expect(resolve('1', [])).toEqual({ ok: false, error: 'Invalid index: 1' });
  });

  it('the recent window decides which ended children an index reaches', () => {
    expect(runIdOf(resolveSubagentTarget(RUNS, '5', { now: NOW, recentMinutes: 120 }))).toBe('x-eps');
    expect(resolveSubagentTarget(RUNS, '4', { now: NOW, recentMinutes: 10 })).toEqual({
      ok: false,
      error: 'Invalid index: 4',
    });
  });

  it('a target with `:` is an exact child session key', () => {
    expect(runIdOf(resolve('agent:main:subagent:e'))).toBe('x-eps');
    expect(resolve('agent:main:subagent')).toEqual({
      ok: false,
      error: 'Unknown session: agent:main:subagent',
    });
  });

  it('matches an exact label case-insensitively, before prefixes', () => {
    expect(runIdOf(resolve('ALPHA'))).toBe('r-alpha');
    const twins = [
      run('r-1', 'x', 'Report', 3),
      run('r-2', 'y', 'report', 2),
      run('r-3', 'z', 'reporter', 1),
    ];
    expect(resolve('REPORT', twins)).toEqual({ ok: false, error: 'Ambiguous label: REPORT' });
    expect(runIdOf(resolve('reporter', twins))).toBe('r-3');
  });

  it('then a label prefix, case-insensitively', () => {
    expect(runIdOf(resolve('Beta-'))).toBe('r-beta');
    const twins = [run('r-1', 'x', 'scan-a', 3), run('r-2', 'y', 'scan-b', 2)];
    expect(resolve('scan', twins)).toEqual({ ok: false, error: 'Ambiguous label prefix: scan' });
  });

  it('then a run id prefix, then nothing', () => {
    expect(runIdOf(resolve('x-'))).toBe('x-eps');
    expect(resolve('r-')).toEqual({ ok: false, error: 'Ambiguous runId prefix: r-' });
    expect(resolve('nobody')).toEqual({ ok: false, error: 'Unknown target: nobody' });
  });

  it('looks only at the latest run of each child', () => {
    const first = run('r-old', 'a', 'worker', 30, { ago: 25 });
    const second = run('r-new', 'a', 'worker', 3);
    expect(runIdOf(resolve('worker', [first, second]))).toBe('r-new');
    expect(runIdOf(resolve('r-old', [first, second]))).toBe('Unknown target: r-old');
  });
});

describe('buildSubagentList', () => {
  it('numbers active then recent children and leaves out older ones', () => {
    const list = buildSubagentList(RUNS, window);
    expect(list.total).toBe(4);
    expect(list.active.map((entry) => [entry.index, entry.runId])).toEqual([
      [1, 'r-beta'],
      [2, 'r-alpha'],
    ]);
    expect(list.recent.map((entry) => [entry.index, entry.runId])).toEqual([
      [3, 'r-gamma'],
      [4, 'r-delta'],
    ]);
    expect(list.active[1]).toEqual({
      index: 2,
      runId: 'r-alpha',
      label: 'Alpha',
      status: 'running',
      startedAt: NOW - 10 * MINUTE,
      runtimeMs: 10 * MINUTE,
      childSessionKey: 'agent:main:subagent:a',
    });
    expect(list.text).toBe(
      'Active:\n[1] beta-report (queued, 5m)\n[2] Alpha (running, 10m)\nRecent:\n[3] gamma (done, 6m)\n[4] delta (error, 20m)',
    );
  });

  it('lists a child with two runs once, by its latest run', () => {
    const list = buildSubagentList(
      [run('r-old', 'a', 'worker', 30, { ago: 25 }), run('r-new', 'a', 'worker', 3)],
      window,
    );
    expect(list.total).toBe(1);
    expect(list.active.map((entry) => entry.runId)).toEqual(['r-new']);
    expect(list.recent).toEqual([]);
  });

  it('leaves out empty sections and says so when nothing is listed', () => {
    expect(buildSubagentList([gamma], window).text).toBe('Recent:\n[1] gamma (done, 6m)');
    expect(buildSubagentList([epsilon], window).text).toBe('No sub-agents.');
  });

  it('formats runtimes briefly', () => {
    expect([0, 12_400, 60_000, 65 * MINUTE, 120 * MINUTE].map(formatRuntime)).toEqual([
      '0s',
      '12s',
      '1m',
      '1h 5m',
      '2h',
    ]);
  });
});

describe('runSubagentsAction', () => {
  it('lists the caller session children only', async () => {
    const { service, calls } = fakeService({ [PARENT]: [alpha], 'agent:main:other': [gamma] });
    const result = await runSubagentsAction(service, caller, {}, NOW);
    expect(result).toMatchObject({
      status: 'ok',
      action: 'list',
      total: 1,
      text: 'Active:\n[1] Alpha (running, 10m)',
    });
    expect(calls.runs).toEqual([PARENT]);
  });

  it('defaults recentMinutes to 30 and clamps it to 1–1440, floored', async () => {
    expect([undefined, 0, -5, 2.9, 5000, Number.NaN].map(clampRecentMinutes)).toEqual([
      30, 1, 1, 2, 1440, 30,
    ]);
    const { service } = fakeService({ [PARENT]: RUNS });
    const wide = await runSubagentsAction(service, caller, { action: 'list', recentMinutes: 90.5 }, NOW);
    expect(wide).toMatchObject({ total: 5 });
    const narrow = await runSubagentsAction(service, caller, { action: 'list', recentMinutes: 0 }, NOW);
    expect(narrow).toMatchObject({ total: 2 });
  });

  it('kill needs a target', async () => {
    const { service } = fakeService({ [PARENT]: RUNS });
    expect(await runSubagentsAction(service, caller, { action: 'kill', target: ' ' }, NOW)).toEqual({
      status: 'error',
      action: 'kill',
      error: 'target is required',
    });
  });

  it('kills one child and reports its killed descendants', async () => {
    const grandchild = run('r-grand', 'g', 'grandchild', 4);
    const { service, calls } = fakeService({ [PARENT]: RUNS }, { descendants: { 'r-alpha': [grandchild] } });
    const result = await runSubagentsAction(service, caller, { action: 'kill', target: 'alpha' }, NOW);
    expect(result).toEqual({
      status: 'ok',
      action: 'kill',
      target: 'alpha',
      runId: 'r-alpha',
      sessionKey: 'agent:main:subagent:a',
      label: 'Alpha',
      killed: 2,
      labels: ['Alpha', 'grandchild'],
      cascadeKilled: 1,
      text: 'killed Alpha and 1 descendant.',
    });
    expect(calls.kill).toEqual(['r-alpha']);
    const single = await runSubagentsAction(service, caller, { action: 'kill', target: '1' }, NOW);
    expect(single).toMatchObject({ killed: 1, cascadeKilled: 0, text: 'killed beta-report.' });
  });

  it('a child that has ended is not killed, what runs below it is; resolution errors pass on', async () => {
    const grandchild = run('r-grand', 'g', 'grandchild', 4);
    const { service, calls } = fakeService({ [PARENT]: RUNS }, { descendants: { 'r-delta': [grandchild] } });
    const ended = await runSubagentsAction(service, caller, { action: 'kill', target: 'delta' }, NOW);
    expect(ended).toMatchObject({
      status: 'ok',
      killed: 1,
      labels: ['grandchild'],
      cascadeKilled: 1,
      text: 'delta is not running (error); killed 1 descendant.',
    });
    const quiet = await runSubagentsAction(service, caller, { action: 'kill', target: 'gamma' }, NOW);
    expect(quiet).toMatchObject({
      killed: 0,
      labels: [],
      cascadeKilled: 0,
      text: 'gamma is not running (done).',
    });
    const unknown = await runSubagentsAction(service, caller, { action: 'kill', target: '9' }, NOW);
    expect(unknown).toEqual({ status: 'error', action: 'kill', target: '9', error: 'Invalid index: 9' });
    expect(calls.kill).toEqual(['r-delta', 'r-gamma']);
  });

  it('kills all active children, counting cascades once', async () => {
    const grandchild = run('r-grand', 'g', 'grandchild', 4);
    // The fake's cascade from beta also reports alpha: alpha must not be killed again.
    const { service, calls } = fakeService(
      { [PARENT]: RUNS },
      { descendants: { 'r-beta': [alpha, grandchild] } },
    );
    const result = await runSubagentsAction(service, caller, { action: 'kill', target: 'all' }, NOW);
    // Every child is asked (an ended one may have running descendants), alpha not: beta's cascade got it.
    expect(calls.kill).toEqual(['r-beta', 'r-gamma', 'r-delta', 'x-eps']);
    expect(result).toEqual({
      status: 'ok',
      action: 'kill',
      target: 'all',
      killed: 3,
      labels: ['beta-report', 'Alpha', 'grandchild'],
      text: 'killed 3 subagents.',
    });
    const one = fakeService({ [PARENT]: [gamma, alpha] });
    const killedOne = await runSubagentsAction(one.service, caller, { action: 'kill', target: '*' }, NOW);
    expect(killedOne).toMatchObject({ killed: 1, text: 'killed 1 subagent.' });
  });

  it('kill all with nothing running kills nothing', async () => {
    const { service, calls } = fakeService({ [PARENT]: [gamma, delta] });
    // Both ended: they are asked for what may run below them, and nothing does.
    const result = await runSubagentsAction(service, caller, { action: 'kill', target: 'all' }, NOW);
    expect(result).toEqual({
      status: 'ok',
      action: 'kill',
      target: 'all',
      killed: 0,
      labels: [],
      text: 'no running subagents to kill.',
    });
    expect(calls.kill).toEqual(['r-gamma', 'r-delta']);
  });

  it('steer needs a target and a message of at most 4000 characters', async () => {
    const { service, calls } = fakeService({ [PARENT]: RUNS });
    const steer = (target: string | undefined, message: string | undefined) =>
      runSubagentsAction(service, caller, { action: 'steer', target, message }, NOW);
    expect(await steer(undefined, 'hi')).toEqual({
      status: 'error',
      action: 'steer',
      error: 'target is required',
    });
    expect(await steer('alpha', '')).toEqual({
      status: 'error',
      action: 'steer',
      target: 'alpha',
      error: 'message is required',
    });
    // Checked before resolution: an unknown target with a long message reports the length.
    expect(await steer('nobody', 'x'.repeat(4001))).toEqual({
      status: 'error',
      action: 'steer',
      target: 'nobody',
      error: 'Message too long (4001 chars, max 4000).',
    });
    expect(await steer('nobody', 'hi')).toMatchObject({ status: 'error', error: 'Unknown target: nobody' });
    expect(await steer('alpha', 'x'.repeat(4000))).toMatchObject({ status: 'ok' });
    expect(calls.steer.map((call) => call.runId)).toEqual(['r-alpha']);
  });

  it('steers a running child or restarts an ended one', async () => {
    const injected = fakeService({ [PARENT]: RUNS });
    expect(
      await runSubagentsAction(
        injected.service,
        caller,
        { action: 'steer', target: 'alpha', message: ' focus ' },
        NOW,
      ),
    ).toEqual({
      status: 'ok',
      action: 'steer',
      target: 'alpha',
      runId: 'r-alpha',
      sessionKey: 'agent:main:subagent:a',
      label: 'Alpha',
      mode: 'injected',
      text: 'Message sent to subagent.',
    });
    expect(injected.calls.steer).toEqual([{ runId: 'r-alpha', message: 'focus' }]);
    const restarted = fakeService(
      { [PARENT]: RUNS },
      { steer: { ok: true, value: { mode: 'restarted', subagentRunId: 'r-next' } } },
    );
    const result = await runSubagentsAction(
      restarted.service,
      caller,
      { action: 'steer', target: 'gamma', message: 'again' },
      NOW,
    );
    expect(result).toMatchObject({
      runId: 'r-next',
      mode: 'restarted',
      text: 'Subagent restarted with the message.',
    });
  });

  it('passes a steer refusal from the service on', async () => {
    const { service } = fakeService(
      { [PARENT]: RUNS },
      { steer: { ok: false, error: 'child session is busy' } },
    );
    const result = await runSubagentsAction(
      service,
      caller,
      { action: 'steer', target: '1', message: 'hi' },
      NOW,
    );
    expect(result).toEqual({ status: 'error', action: 'steer', target: '1', error: 'child session is busy' });
  });

  it('never sees another session children', async () => {
    const { service, calls } = fakeService({ 'agent:main:other': RUNS });
    expect(await runSubagentsAction(service, caller, { action: 'kill', target: 'alpha' }, NOW)).toMatchObject(
      {
        status: 'error',
        error: 'Unknown target: alpha',
      },
    );
    expect(await runSubagentsAction(service, caller, { action: 'kill', target: 'all' }, NOW)).toMatchObject({
      killed: 0,
    });
    expect(calls.runs).toEqual([PARENT, PARENT]);
    expect(calls.kill).toEqual([]);
  });
});

describe("the subagents tool as Suzumio's original notes have it (issue 35)", () => {
  it('lists with requesterSessionKey, callerSessionKey and callerIsSubagent', async () => {
    const { service } = fakeService({ [PARENT]: [run('r1', 'a', 'alpha', 5)] });
    const listed: any = await runSubagentsAction(service, caller, { action: 'list' }, NOW);
    expect(listed).toMatchObject({
      status: 'ok',
      requesterSessionKey: PARENT,
      callerSessionKey: PARENT,
      callerIsSubagent: false,
    });
    const child = { ...caller, sessionKey: 'agent:main:subagent:a' };
    const nested: any = await runSubagentsAction(fakeService({}).service, child, {}, NOW);
    expect(nested).toMatchObject({ callerSessionKey: 'agent:main:subagent:a', callerIsSubagent: true });
  });

  it('answers an unknown action with Unsupported action. and the allowed ones', async () => {
    const { service } = fakeService({});
    expect(await runSubagentsAction(service, caller, { action: 'pause' as never }, NOW)).toEqual({
      status: 'error',
      action: 'pause',
      error: 'Unsupported action. Allowed actions: list, kill, steer.',
    });
  });
});
