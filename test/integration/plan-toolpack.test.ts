import { mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import {
  type ControllerHost,
  createControllerHost,
  createProjectStore,
  type LoadedToolpack,
} from '../../src/extensions/toolpacks/index.js';
import { createStore, type Store } from '../../src/records/store/index.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { REPO_ROOT } from '../helpers/process.js';
import { loadToolpackFixture } from '../helpers/toolpacks.js';

/**
 * The packaged plan toolpack (`toolpacks/plan`): its controller driven directly (tools, WebUI and the
 * scheduler hook with a controlled clock, roster and pending-signal view), then once through a real
 * gateway whose scheduler wakes the plan's target agent.
 */

const PLAN_DIR = path.join(REPO_ROOT, 'toolpacks/plan');
const ROSTER = [
  { id: 'pm', displayName: 'Project manager', role: 'coordinator', status: 'idle' },
  { id: 'dev', displayName: 'Developer', role: 'agent', status: 'idle' },
];
const T0 = Date.parse('2030-01-01T00:00:00.000Z');

let stateDir: string;
let store: Store;
let toolpack: LoadedToolpack;
let host: ControllerHost;

const silent = () => createLogger({ level: 'fatal', destination: { write: () => {} } }).logger;

const loadPlan = () => loadToolpackFixture(PLAN_DIR, 'plan');

function newHost(): ControllerHost {
  const projectStore = createProjectStore({
    toolpackId: 'plan',
    stateDir,
    routeNames: [],
    coordinatorAgent: 'pm',
    listAgents: () => ROSTER,
    projectStats: () => ({}),
    deliver: () => {},
    store,
    logger: silent(),
  });
  return createControllerHost({ toolpack, store: projectStore, logger: silent(), recordSignal: () => {} });
}

beforeEach(async () => {
  stateDir = await realpath(await mkdtemp(path.join(tmpdir(), 'plan-toolpack-')));
  store = await createStore({ url: 'memory://', stateDir, logger: silent() });
  toolpack = await loadPlan();
  host = newHost();
});

afterEach(async () => {
  await store.close();
  await rm(stateDir, { recursive: true, force: true });
});

async function call(tool: string, input: unknown = {}, on: ControllerHost = host): Promise<any> {
  return on.support({ tool, input, agent: { id: 'dev' }, activationId: 'act_test' });
}

async function stateOnDisk(): Promise<any> {
  return JSON.parse(await readFile(path.join(stateDir, 'toolpack-state/plan/state.json'), 'utf8'));
}

interface TickOptions {
  now?: number;
  status?: 'idle' | 'running';
  modelAlive?: boolean;
  pending?: string[];
  agents?: string[];
}

async function tick(options: TickOptions = {}, on: ControllerHost = host): Promise<any[]> {
  const hook = await on.schedulerHook();
  if (!hook) throw new Error('the plan controller has no scheduler hook');
  const status = options.status ?? 'idle';
  const agents = (options.agents ?? ['pm', 'dev']).map((id) => ({
    id,
    displayName: id,
    role: 'agent',
    status,
    activeActivationId: null,
    updatedAt: new Date(options.now ?? T0).toISOString(),
    modelAlive: options.modelAlive ?? status === 'running',
  }));
  const pending = new Set(options.pending ?? []);
  const result = await hook({
    now: options.now ?? T0,
    agents,
    recordSignal: () => {},
    hasPendingSignals: () => pending.size > 0,
    hasPendingSignalsForAgent: (id: string) => pending.has(id),
  });
  return result as any[];
}

describe('the plan manifest', () => {
  it('passes loadToolpackManifest with the Suzumio tool names and WebUI entries', async () => {
    expect(toolpack.id).toBe('plan');
    expect(toolpack.tools.map((tool) => tool.name)).toEqual([
      'plan.create',
      'plan.status',
      'plan.update',
      'plan.set_item_status',
      'plan.close',
    ]);
    expect(toolpack.webui.map((entry) => [entry.id, entry.kind])).toEqual([
      ['plan.board', 'panel'],
      ['plan.create', 'action'],
      ['plan.update', 'action'],
      ['plan.set_item_status', 'action'],
      ['plan.close', 'action'],
    ]);
    const schema = (name: string): any => toolpack.tools.find((tool) => tool.name === name)?.inputSchema;
    const argumentsOf = (name: string) => Object.keys(schema(name).properties);
    expect(argumentsOf('plan.create')).toEqual([
      'title',
      'targetAgent',
      'itemsText',
      'instructions',
      'replaceActive',
      'nudgeCooldownMs',
      'maxNudges',
    ]);
    expect(schema('plan.create').required).toEqual(['title', 'itemsText']);
    expect(schema('plan.create').properties.nudgeCooldownMs.default).toBe(60000);
    expect(schema('plan.create').properties.maxNudges.default).toBe(0);
    expect(argumentsOf('plan.status')).toEqual(['includeArchived']);
    expect(schema('plan.update').properties.itemMode).toMatchObject({
      enum: ['append', 'replace'],
      default: 'append',
    });
    expect(argumentsOf('plan.set_item_status')).toEqual(['itemId', 'itemIndex', 'status', 'text', 'note']);
    expect(schema('plan.set_item_status').properties.status.enum).toEqual(['tbd', 'done', 'wont_do']);
    expect(schema('plan.close').properties.status).toMatchObject({
      enum: ['done', 'abandoned'],
      default: 'done',
    });
  });
});

describe('plan tools', () => {
  it('creates a plan from itemsText with defaults: the coordinator as target, ids pln_/item_n', async () => {
    const created = await call('plan.create', {
      title: 'Ship v2',
      itemsText: '- write the changelog\n2. tag the release\n\n* announce in #ops\n',
    });
    expect(created.title).toBe('plan created');
    const plan = created.metadata.activePlan;
    expect(plan.id).toMatch(/^pln_[0-9a-f-]{36}$/);
    expect(plan).toMatchObject({
      status: 'active',
      title: 'Ship v2',
      targetAgent: 'pm',
      nudgeCooldownMs: 60000,
      maxNudges: 0,
      nudgeCount: 0,
    });
    expect(plan.items.map((item: any) => [item.id, item.text, item.status])).toEqual([
      ['item_1', 'write the changelog', 'tbd'],
      ['item_2', 'tag the release', 'tbd'],
      ['item_3', 'announce in #ops', 'tbd'],
    ]);
    expect(created.output).toContain('1. item_1 [tbd] write the changelog');
    const disk = await stateOnDisk();
    expect(disk).toMatchObject({ version: 1, activePlan: { id: plan.id }, archivedPlans: [] });
    // Atomic writes leave no temp files behind.
    expect(await readdir(path.join(stateDir, 'toolpack-state/plan'))).toEqual(['state.json']);
  });

  it('accepts items[], an explicit target and nudge settings', async () => {
    const created = await call('plan.create', {
      title: 'Triage',
      items: [' read the queue ', 'label bugs'],
      targetAgent: 'dev',
      instructions: 'Oldest first.',
      nudgeCooldownMs: 5000,
      maxNudges: 2,
    });
    expect(created.metadata.activePlan).toMatchObject({
      targetAgent: 'dev',
      instructions: 'Oldest first.',
      nudgeCooldownMs: 5000,
      maxNudges: 2,
      items: [{ id: 'item_1', text: 'read the queue' }, { id: 'item_2' }],
    });
  });

  it('refuses a second plan while one is incomplete, unless replaceActive (the old one is archived)', async () => {
    const first = (await call('plan.create', { title: 'One', itemsText: 'a' })).metadata.activePlan;
    await expect(call('plan.create', { title: 'Two', itemsText: 'b' })).rejects.toThrow(
      /an active plan already exists: pln_.* "One" with 1 item\(s\) still tbd/,
    );
    expect((await stateOnDisk()).activePlan.id).toBe(first.id);
    const replaced = await call('plan.create', { title: 'Two', itemsText: 'b', replaceActive: true });
    expect(replaced.metadata.activePlan.title).toBe('Two');
    const status = await call('plan.status', { includeArchived: true });
    expect(status.metadata.archivedPlans).toMatchObject([{ id: first.id, status: 'replaced' }]);
    expect(status.output).toContain(`${first.id} [replaced] One`);
  });

  it('walks an item through tbd → done → tbd and finishes the plan by itself when all are resolved', async () => {
    await call('plan.create', { title: 'Release', itemsText: 'build\ntest\ndeploy' });
    let result = await call('plan.set_item_status', { itemId: 'item_1', status: 'done', note: 'green' });
    expect(result.metadata.activePlan.items[0]).toMatchObject({ status: 'done', note: 'green' });
    expect(result.metadata.activePlan.status).toBe('active');
    result = await call('plan.set_item_status', { itemIndex: 1, status: 'tbd', text: 'build again' });
    expect(result.metadata.activePlan.items[0]).toMatchObject({ status: 'tbd', text: 'build again' });
    await call('plan.set_item_status', { itemIndex: 1, status: 'done' });
    await call('plan.set_item_status', { itemIndex: 2, status: 'wont_do', note: 'covered by CI' });
    result = await call('plan.set_item_status', { itemId: 'item_3', status: 'done' });
    expect(result.metadata.activePlan.status).toBe('done');
    expect(result.metadata.activePlan.completedAt).toEqual(expect.any(String));
    expect(result.output).toContain('Status: done');

    // Reopening an item makes the plan active again.
    result = await call('plan.set_item_status', { itemIndex: 3, status: 'tbd' });
    expect(result.metadata.activePlan.status).toBe('active');
    expect(result.metadata.activePlan.completedAt).toBeUndefined();
    await call('plan.set_item_status', { itemIndex: 3, status: 'done' });

    // A finished plan does not block a new one: it is archived as done.
    const next = await call('plan.create', { title: 'Next', itemsText: 'x' });
    expect(next.metadata.activePlan.title).toBe('Next');
    const status = await call('plan.status', { includeArchived: true });
    expect(status.metadata.archivedPlans).toMatchObject([{ title: 'Release', status: 'done' }]);
  });

  it('updates metadata, appends and replaces items (replace renumbers), and reopens a done plan', async () => {
    await call('plan.create', { title: 'Docs', itemsText: 'intro' });
    let result = await call('plan.update', {
      title: 'Docs v2',
      targetAgent: 'dev',
      instructions: 'Keep it short.',
      nudgeCooldownMs: 1000,
      maxNudges: 3,
      itemsText: 'api\nfaq',
    });
    expect(result.title).toBe('plan updated');
    expect(result.metadata.activePlan).toMatchObject({
      title: 'Docs v2',
      targetAgent: 'dev',
      instructions: 'Keep it short.',
      nudgeCooldownMs: 1000,
      maxNudges: 3,
    });
    expect(result.metadata.activePlan.items.map((item: any) => item.id)).toEqual([
      'item_1',
      'item_2',
      'item_3',
    ]);

    result = await call('plan.update', { itemsText: 'only this', itemMode: 'replace' });
    expect(result.metadata.activePlan.items).toMatchObject([
      { id: 'item_1', text: 'only this', status: 'tbd' },
    ]);

    result = await call('plan.set_item_status', { itemIndex: 1, status: 'done' });
    expect(result.metadata.activePlan.status).toBe('done');
    result = await call('plan.update', { itemsText: 'one more' });
    expect(result.metadata.activePlan.status).toBe('active');
    expect(result.metadata.activePlan.items.at(-1)).toMatchObject({ id: 'item_2', status: 'tbd' });
  });

  it('closes: done refused while items are tbd, abandoned allowed, done once resolved', async () => {
    await call('plan.create', { title: 'A', itemsText: 'one\ntwo' });
    await expect(call('plan.close', { status: 'done' })).rejects.toThrow(
      /cannot close plan pln_\S+ as done: item_1, item_2 still tbd/,
    );
    await expect(call('plan.close', {})).rejects.toThrow(/as done/);
    const abandoned = await call('plan.close', { status: 'abandoned', reason: 'priorities changed' });
    expect(abandoned.title).toBe('plan closed');
    expect(abandoned.metadata.activePlan).toBeNull();
    expect(abandoned.metadata.archivedPlans[0]).toMatchObject({
      title: 'A',
      status: 'abandoned',
      closeReason: 'priorities changed',
    });

    await call('plan.create', { title: 'B', itemsText: 'one' });
    await call('plan.set_item_status', { itemIndex: 1, status: 'wont_do' });
    const closed = await call('plan.close', { reason: 'shipped' });
    expect(closed.metadata.archivedPlans.map((plan: any) => [plan.title, plan.status])).toEqual([
      ['B', 'done'],
      ['A', 'abandoned'],
    ]);
    await expect(call('plan.close', {})).rejects.toThrow('there is no active plan');
  });

  it('keeps at most 20 archived plans, newest first', async () => {
    for (let n = 1; n <= 21; n++) {
      await call('plan.create', { title: `Plan ${n}`, itemsText: 'only item' });
      await call('plan.close', { status: 'abandoned' });
    }
    const status = await call('plan.status', { includeArchived: true });
    expect(status.metadata.archivedPlans).toHaveLength(20);
    expect(status.metadata.archivedPlans[0].title).toBe('Plan 21');
    expect(status.metadata.archivedPlans.at(-1).title).toBe('Plan 2');
    expect((await stateOnDisk()).archivedPlans).toHaveLength(20);
  });

  it('reports status without archived plans unless asked, and with no plan at all', async () => {
    const empty = await call('plan.status');
    expect(empty.output).toBe('No active plan.');
    expect(empty.metadata).toMatchObject({
      activePlan: null,
      metrics: [{ label: 'Active plan', value: 'none' }],
    });
    await call('plan.create', { title: 'Q', itemsText: 'a' });
    const status = await call('plan.status', {});
    expect(status.metadata.archivedPlans).toBeUndefined();
    expect(status.output).toContain('Items: 1 tbd, 0 done, 0 wont_do');
  });

  it('refuses bad input with clear messages', async () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['plan.create', { itemsText: 'a' }, /title must be a non-empty string/],
      ['plan.create', { title: ' ', itemsText: 'a' }, /title must be a non-empty string/],
      ['plan.create', { title: 'T', itemsText: '\n - \n' }, /needs at least one item/],
      ['plan.create', { title: 'T' }, /needs at least one item/],
      ['plan.create', { title: 'T', itemsText: 'a', items: ['b'] }, /not both/],
      ['plan.create', { title: 'T', items: ['a', 3] }, /items\[1\] must be a non-empty string/],
      ['plan.create', { title: 'T', itemsText: 'a', targetAgent: 'ghost' }, /unknown targetAgent "ghost"/],
      [
        'plan.create',
        { title: 'T', itemsText: 'a', nudgeCooldownMs: -5 },
        /nudgeCooldownMs must be a number ≥ 0/,
      ],
      ['plan.create', { title: 'T', itemsText: 'a', maxNudges: 'two' }, /maxNudges must be a number ≥ 0/],
      [
        'plan.create',
        { title: 'T', itemsText: 'a', replaceActive: 'yes' },
        /replaceActive must be true or false/,
      ],
      ['plan.create', { title: 'T', itemsText: 'a', colour: 'red' }, /unknown argument\(s\) colour/],
      ['plan.create', 'just text', /the input must be an object/],
      ['plan.update', { title: 'x' }, /there is no active plan/],
      ['plan.set_item_status', { itemIndex: 1, status: 'done' }, /there is no active plan/],
      ['plan.status', { includeArchived: 'yes' }, /includeArchived must be true or false/],
    ];
    for (const [tool, input, message] of cases) {
      await expect(call(tool, input), `${tool} ${JSON.stringify(input)}`).rejects.toThrow(message);
    }

    await call('plan.create', { title: 'T', itemsText: 'a\nb' });
    const withPlan: Array<[string, unknown, RegExp]> = [
      ['plan.set_item_status', { itemIndex: 1 }, /status is required/],
      [
        'plan.set_item_status',
        { itemIndex: 1, status: 'finished' },
        /status must be one of tbd, done, wont_do/,
      ],
      ['plan.set_item_status', { status: 'done' }, /needs itemId .* or itemIndex/],
      [
        'plan.set_item_status',
        { itemIndex: 3, status: 'done' },
        /itemIndex 3 is out of range: plan \S+ has 2/,
      ],
      ['plan.set_item_status', { itemIndex: 0, status: 'done' }, /itemIndex must be a whole number ≥ 1/],
      ['plan.set_item_status', { itemIndex: 1.5, status: 'done' }, /itemIndex must be a whole number/],
      [
        'plan.set_item_status',
        { itemId: 'item_9', status: 'done' },
        /has no item item_9 \(items: item_1, item_2\)/,
      ],
      [
        'plan.set_item_status',
        { itemId: 'item_1', itemIndex: 2, status: 'done' },
        /is item 1, not itemIndex 2/,
      ],
      ['plan.set_item_status', { itemIndex: 1, status: 'done', text: '' }, /text must be a non-empty string/],
      ['plan.update', {}, /needs something to change/],
      ['plan.update', { itemsText: 'c', itemMode: 'merge' }, /itemMode must be one of append, replace/],
      ['plan.update', { title: 'x', itemMode: 'replace' }, /itemMode needs itemsText/],
      ['plan.update', { targetAgent: 'ghost' }, /unknown targetAgent "ghost" \(agents: pm, dev\)/],
      ['plan.close', { status: 'cancelled' }, /status must be one of done, abandoned/],
    ];
    for (const [tool, input, message] of withPlan) {
      await expect(call(tool, input), `${tool} ${JSON.stringify(input)}`).rejects.toThrow(message);
    }
    // Nothing of the refused calls reached the state.
    const plan = (await stateOnDisk()).activePlan;
    expect(plan.items.map((item: any) => item.status)).toEqual(['tbd', 'tbd']);
    expect(plan.title).toBe('T');
  });

  it('keeps its state across a new controller host on the same state dir', async () => {
    await call('plan.create', { title: 'Durable', itemsText: 'a\nb', targetAgent: 'dev' });
    await call('plan.set_item_status', { itemIndex: 1, status: 'done' });
    expect(await tick({ now: T0 })).toHaveLength(1);

    const reborn = newHost();
    const status = await call('plan.status', {}, reborn);
    expect(status.metadata.activePlan).toMatchObject({
      title: 'Durable',
      targetAgent: 'dev',
      nudgeCount: 1,
      items: [{ status: 'done' }, { status: 'tbd' }],
    });
    // The cooldown carries over too.
    expect(await tick({ now: T0 + 30_000 }, reborn)).toEqual([]);
    expect(await tick({ now: T0 + 60_000 }, reborn)).toHaveLength(1);
  });

  it('moves a corrupt state file aside and starts empty', async () => {
    const file = path.join(stateDir, 'toolpack-state/plan/state.json');
    await call('plan.create', { title: 'x', itemsText: 'a' });
    await writeFile(file, '{ not json');
    const original = console.error;
    console.error = () => {};
    try {
      expect((await call('plan.status')).output).toBe('No active plan.');
    } finally {
      console.error = original;
    }
    const files = await readdir(path.dirname(file));
    expect(files.some((name) => name.startsWith('state.json.corrupt-'))).toBe(true);
  });

  it('serves the WebUI entries through the same handlers', async () => {
    expect(await host.hasWebuiHandler('plan.board')).toBe(true);
    for (const id of ['plan.create', 'plan.update', 'plan.set_item_status', 'plan.close']) {
      expect(await host.hasWebuiHandler(id)).toBe(true);
    }
    await host.webui('plan.create', { title: 'From the board', itemsText: 'one' });
    await host.webui('plan.update', { itemsText: 'two' });
    await host.webui('plan.set_item_status', { itemIndex: 1, status: 'done' });
    const board = await host.webui('plan.board', {});
    expect(board.output).toContain('Plan pln_');
    expect((board.metadata as any).metrics).toEqual(
      expect.arrayContaining([
        { label: 'TBD', value: 1 },
        { label: 'Done', value: 1 },
      ]),
    );
    await host.webui('plan.close', { status: 'abandoned' });
    const after = await host.webui('plan.board', { includeArchived: true });
    expect(after.output).toContain('[abandoned] From the board');
  });
});

describe('continuation nudges (schedulerTick)', () => {
  it('nudges an idle target with a P2 plan.continuation_nudge listing the remaining items', async () => {
    expect(await tick()).toEqual([]); // no plan
    const plan = (
      await call('plan.create', {
        title: 'Migrate DB',
        itemsText: 'dump\nrestore\nverify',
        targetAgent: 'dev',
        instructions: 'Use the staging replica.',
      })
    ).metadata.activePlan;
    await call('plan.set_item_status', { itemIndex: 1, status: 'done' });
    const signals = await tick({ now: T0 });
    expect(signals).toHaveLength(1);
    const [signal] = signals;
    expect(signal).toMatchObject({ kind: 'plan.continuation_nudge', targetAgent: 'dev', priority: 'P2' });
    expect(signal.payload).toMatchObject({
      planId: plan.id,
      title: 'Migrate DB',
      nudgeCount: 1,
      remainingItems: [
        { id: 'item_2', text: 'restore' },
        { id: 'item_3', text: 'verify' },
      ],
    });
    expect(signal.payload.message).toMatch(/^Continue the active plan/);
    expect(signal.payload.message).toContain('- item_2: restore');
    expect(signal.payload.message).toContain('Instructions: Use the staging replica.');
    const disk = (await stateOnDisk()).activePlan;
    expect(disk).toMatchObject({ nudgeCount: 1, lastNudgeAt: new Date(T0).toISOString() });
  });

  it('never nudges a target with a live turn, an unknown target, or a plan with nothing tbd', async () => {
    await call('plan.create', { title: 'P', itemsText: 'a', nudgeCooldownMs: 0 });
    expect(await tick({ status: 'running' })).toEqual([]);
    expect(await tick({ status: 'idle', modelAlive: true })).toEqual([]);
    expect(await tick({ agents: ['dev'] })).toEqual([]);
    expect((await stateOnDisk()).activePlan.nudgeCount).toBe(0);
    expect(await tick({ status: 'idle' })).toHaveLength(1);

    await call('plan.set_item_status', { itemIndex: 1, status: 'done' });
    expect(await tick({ now: T0 + 1 })).toEqual([]);
  });

  it('does not nudge while a signal for the target is pending (dedupe)', async () => {
    await call('plan.create', { title: 'P', itemsText: 'a', nudgeCooldownMs: 0 });
    expect(await tick({ now: T0 })).toHaveLength(1);
    expect(await tick({ now: T0 + 10, pending: ['pm'] })).toEqual([]);
    expect(await tick({ now: T0 + 20, pending: ['pm'] })).toEqual([]);
    // Another agent's pending signals do not matter.
    expect(await tick({ now: T0 + 30, pending: ['dev'] })).toHaveLength(1);
    expect((await stateOnDisk()).activePlan.nudgeCount).toBe(2);
  });

  it('waits nudgeCooldownMs between nudges (default 60000)', async () => {
    await call('plan.create', { title: 'P', itemsText: 'a' });
    expect(await tick({ now: T0 })).toHaveLength(1);
    expect(await tick({ now: T0 + 1 })).toEqual([]);
    expect(await tick({ now: T0 + 59_999 })).toEqual([]);
    expect(await tick({ now: T0 + 60_000 })).toHaveLength(1);
    await call('plan.update', { nudgeCooldownMs: 1000 });
    expect(await tick({ now: T0 + 60_999 })).toEqual([]);
    const [third] = await tick({ now: T0 + 61_000 });
    expect(third.payload.nudgeCount).toBe(3);
  });

  it('stops after maxNudges (0 = unlimited)', async () => {
    await call('plan.create', { title: 'P', itemsText: 'a', nudgeCooldownMs: 0, maxNudges: 2 });
    expect(await tick({ now: T0 })).toHaveLength(1);
    expect(await tick({ now: T0 + 1 })).toHaveLength(1);
    expect(await tick({ now: T0 + 2 })).toEqual([]);
    expect(await tick({ now: T0 + 1_000_000 })).toEqual([]);
    await call('plan.update', { maxNudges: 0 });
    for (let n = 0; n < 5; n++) expect(await tick({ now: T0 + 2_000_000 + n })).toHaveLength(1);
    expect((await stateOnDisk()).activePlan.nudgeCount).toBe(7);
  });
});

describe('the plan toolpack in a gateway', () => {
  let gateway: TestGateway | undefined;
  afterEach(async () => {
    await gateway?.dispose();
    gateway = undefined;
  });

  it('main creates a plan for pm; the scheduler wakes pm in agent:pm:main with a continuation nudge', async () => {
    const model = await startFakeOpenAIServer();
    try {
      gateway = await startTestGateway({
        config: {
          tools: { toolpacks: ['core', { path: PLAN_DIR, id: 'plan' }] },
          models: {
            fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-test-plan' },
          },
          agents: { main: { model: 'fake', tools: ['*'] }, pm: { model: 'fake' } },
          scheduler: { tickMs: 50 },
        },
      });
      model.push({
        toolCalls: [
          {
            name: 'plan.create',
            arguments: { title: 'Launch', itemsText: '- draft notes\n- publish', targetAgent: 'pm' },
          },
        ],
      });
      model.push({ text: 'plan made' });
      model.push({ text: 'on it' });
      const response = await gateway.send('make a launch plan for pm');
      expect(response.body.replies.at(-1).text).toBe('plan made');
      const offered = model.requests[0].tools.map((tool: any) => tool.function.name.replaceAll('__', '.'));
      expect(offered).toEqual(
        expect.arrayContaining(['plan.create', 'plan.set_item_status', 'messages.send']),
      );
      const created = model.requests[1].messages.find((message: any) => message.role === 'tool');
      expect(created.content).toContain('plan created');

      await model.waitForRequests(3);
      const woken = model.requests[2];
      expect(woken.messages[0].content).toContain('(session agent:pm:main)');
      const nudge = woken.messages.at(-1).content;
      expect(nudge).toContain('"kind":"plan.continuation_nudge"');
      expect(nudge).toContain('"priority":"P2"');
      expect(nudge).toContain('Continue the active plan');
      expect(nudge).toContain('draft notes');

      const state = JSON.parse(
        await readFile(path.join(gateway.dir, 'data/toolpack-state/plan/state.json'), 'utf8'),
      );
      expect(state.activePlan).toMatchObject({ title: 'Launch', targetAgent: 'pm', nudgeCount: 1 });
      // The 60 s default cooldown holds: no second nudge turn.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(model.requests).toHaveLength(3);
    } finally {
      await model.close();
    }
  });
});
