import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import {
  type ControllerHost,
  type ControllerSignalRequest,
  createControllerHost,
  createProjectStore,
  type ProjectMessage,
  type ProjectStoreOptions,
  toolpackNamespace,
} from '../../src/extensions/toolpacks/index.js';
import { createStore, type Store } from '../../src/records/store/index.js';
import { loadToolpackFixture } from '../helpers/toolpacks.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const ROSTER = [
  { id: 'pm', displayName: 'Project manager', role: 'coordinator', status: 'idle', token: 'never-shown' },
  { id: 'reviewer', displayName: 'Reviewer', role: 'review', status: 'running' },
];
const STATS = { agents: 2, sessions: 5, messages: 17 };

let stateDir: string;
let store: Store;
let logLines: Array<Record<string, any>>;
let signals: ControllerSignalRequest[];
let delivered: ProjectMessage[];

beforeEach(async () => {
  stateDir = await realpath(await mkdtemp(path.join(tmpdir(), 'controller-host-')));
  logLines = [];
  signals = [];
  delivered = [];
  store = await createStore({ url: 'memory://', stateDir, logger: logger() });
});

afterEach(async () => {
  await store.close();
  await rm(stateDir, { recursive: true, force: true });
});

function logger() {
  const destination = { write: (line: string) => logLines.push(JSON.parse(line)) };
  return createLogger({ level: 'debug', destination }).logger;
}

const loadFixture = (relative: string) => loadToolpackFixture(path.join(FIXTURES, relative));

function projectStore(toolpackId: string, overrides: Partial<ProjectStoreOptions> = {}) {
  return createProjectStore({
    toolpackId,
    stateDir,
    routeNames: ['#ops', '#lobby'],
    coordinatorAgent: 'pm',
    listAgents: () => ROSTER,
    projectStats: () => STATS,
    deliver: (message) => {
      delivered.push(message);
    },
    store,
    logger: logger(),
    ...overrides,
  });
}

async function hostFor(relative: string): Promise<ControllerHost> {
  const toolpack = await loadFixture(relative);
  return createControllerHost({
    toolpack,
    store: projectStore(toolpack.id),
    logger: logger(),
    recordSignal: (request) => {
      signals.push(request);
    },
  });
}

const reviewer = { id: 'reviewer', displayName: 'Reviewer' };

function support(host: ControllerHost, tool: string, input: unknown = {}) {
  return host.support({ tool, input, agent: reviewer, activationId: 'activation-1' });
}

describe('controller host: the review-tools example', () => {
  it('records the signal and answers from support', async () => {
    const host = await hostFor('toolpacks/review-tools');
    const answer = await support(host, 'review.summarize', { summary: 'two nits' });
    expect(answer).toEqual({ output: 'Handled review.summarize.' });
    expect(signals).toEqual([
      {
        toolpackId: 'review-tools',
        activationId: 'activation-1',
        signal: {
          kind: 'review.summarized',
          targetAgent: 'pm',
          priority: 'P2',
          payload: { summary: 'two nits' },
        },
      },
    ]);
  });

  it('answers the review.stats panel from projectStats()', async () => {
    const host = await hostFor('toolpacks/review-tools');
    expect(await host.hasWebuiHandler('review.stats')).toBe(true);
    expect(await host.webui('review.stats', {})).toEqual({
      output: JSON.stringify(STATS, null, 2),
      metadata: { stats: STATS },
    });
  });
});

describe('controller host: factory shapes', () => {
  it('runs a { tools } map with the controller context', async () => {
    const host = await hostFor('controller-toolpacks/tools-map');
    expect(await support(host, 'tools-map.echo', { word: 'hi' })).toEqual({
      output: { word: 'hi' },
      title: 'echo',
      metadata: {
        agent: {
          id: 'reviewer',
          displayName: 'Reviewer',
          role: 'review',
          status: 'running',
          switchboardStatus: 'running',
        },
        activationId: 'activation-1',
        toolpackId: 'tools-map',
      },
    });
    expect(await support(host, 'tools-map.plain', { word: 'bare' })).toEqual({ output: 'plain bare' });
  });

  it('runs a direct handler map', async () => {
    const host = await hostFor('controller-toolpacks/handler-map');
    expect(await support(host, 'handler-map.greet', { name: 'Ada' })).toEqual({
      output: 'Hello, Ada.',
      title: 'greeting',
    });
  });

  it('runs an async default factory, once per call', async () => {
    const host = await hostFor('controller-toolpacks/async-default');
    const first = await support(host, 'async-default.count', { n: 1 });
    const second = await support(host, 'async-default.count', { n: 2 });
    expect(first.output).toMatch(/^async-default\.count handled by instance \d+$/);
    const number = (output: unknown) => Number(String(output).split(' ').pop());
    expect(number(second.output)).toBe(number(first.output) + 1);
    expect(second.metadata).toEqual({ input: { n: 2 }, agent: 'reviewer' });
  });

  it('answers "not handled" for a declared tool without a handler', async () => {
    const host = await hostFor('controller-toolpacks/tools-map');
    expect(await support(host, 'tools-map.unhandled')).toEqual({
      title: 'toolpack support',
      output: 'Tool tools-map.unhandled was not handled by the tools-map controller.',
      metadata: { toolpack: 'tools-map', tool: 'tools-map.unhandled' },
    });
    await expect(support(host, 'other.tool')).rejects.toThrow(
      'the tools-map toolpack declares no tool other.tool',
    );
  });
});

describe('controller host: failures', () => {
  it("rethrows a handler's error with the tool and toolpack, and logs its stack", async () => {
    const host = await hostFor('controller-toolpacks/throwing');
    const failure = support(host, 'throwing.fail');
    await expect(failure).rejects.toThrow(
      'throwing.fail failed in the throwing controller: the ledger is locked',
    );
    await expect(failure).rejects.toHaveProperty('cause.message', 'the ledger is locked');
    const line = logLines.find((entry) => entry.msg === 'toolpack controller handler failed');
    expect(line?.toolpack).toBe('throwing');
    expect(line?.err?.stack).toContain('the ledger is locked');
    await expect(host.webui('throwing.panel', {})).rejects.toThrow(
      'throwing.panel failed in the throwing controller: the panel is broken',
    );
  });

  it('refuses a support call when the module exports no controller factory', async () => {
    const host = await hostFor('controller-toolpacks/no-factory');
    await expect(support(host, 'no-factory.call')).rejects.toThrow(
      /^the no-factory controller module \/.+\/no-factory\/controller\.mjs exports no createControllerToolpack and no default factory$/,
    );
  });

  it('fails every call with an error naming the module that cannot load', async () => {
    const host = await hostFor('controller-toolpacks/broken-module');
    const file = path.join(await realpath(FIXTURES), 'controller-toolpacks/broken-module/controller.mjs');
    const reason = 'the controller cannot start without its settings';
    const message = `cannot load the broken-module controller module ${file}: ${reason}`;
    await expect(support(host, 'broken-module.anything')).rejects.toThrow(message);
    await expect(host.webui('broken-module.panel', {})).rejects.toThrow(message);
    await expect(host.hasWebuiHandler('broken-module.panel')).rejects.toThrow(message);
    await expect(host.schedulerHook()).rejects.toThrow(message);
    const loads = logLines.filter((entry) => entry.msg === 'toolpack controller module failed to load');
    expect(loads).toHaveLength(1);
    expect(loads[0]?.file).toBe(file);
  });
});

describe('controller host: WebUI handlers', () => {
  it('finds a `webui` export, a default map and a createWebuiToolpack dispatcher', async () => {
    const toolsMap = await hostFor('controller-toolpacks/tools-map');
    expect(await toolsMap.webui('tools-map.panel', { a: 1 })).toEqual({ output: 'panel saw {"a":1}' });
    const handlerMap = await hostFor('controller-toolpacks/handler-map');
    expect(await handlerMap.webui('handler-map.panel', {})).toEqual({ output: 'default map panel' });
    const asyncDefault = await hostFor('controller-toolpacks/async-default');
    expect(await asyncDefault.webui('async-default.status', { q: 1 })).toEqual({
      output: 'async-default.status',
      metadata: { input: { q: 1 }, project: 'default', toolpackId: 'async-default' },
    });
    expect(signals).toEqual([
      {
        toolpackId: 'async-default',
        signal: { kind: 'webui.used', payload: { entryId: 'async-default.status' } },
      },
    ]);
  });

  it('reports an entry without a handler', async () => {
    const host = await hostFor('controller-toolpacks/tools-map');
    expect(await host.hasWebuiHandler('tools-map.panel')).toBe(true);
    expect(await host.hasWebuiHandler('tools-map.missing')).toBe(false);
    expect(await host.hasWebuiHandler('tools-map.undeclared')).toBe(false);
    await expect(host.webui('tools-map.missing', {})).rejects.toThrow(
      'the tools-map controller has no WebUI handler for tools-map.missing',
    );
    await expect(host.webui('tools-map.undeclared', {})).rejects.toThrow(
      'the tools-map toolpack declares no WebUI entry tools-map.undeclared',
    );
  });
});

describe('controller host: scheduler hooks', () => {
  const tick = { now: 1_700_000_000_000, agents: [{ id: 'pm', modelAlive: false }] };

  it('finds schedulerTick and gives it the store and toolpack id', async () => {
    const hook = await (await hostFor('controller-toolpacks/scheduler-tick')).schedulerHook();
    expect(hook).toBeTypeOf('function');
    expect(await hook?.(tick)).toEqual([
      {
        kind: 'tick.seen',
        priority: 'P3',
        payload: {
          idle: ['pm'],
          now: tick.now,
          project: 'default',
          toolpackId: 'scheduler-tick',
          hasStore: true,
        },
      },
    ]);
    await expect(hook?.({ ...tick, fail: true })).rejects.toThrow(
      'schedulerTick failed in the scheduler-tick controller: the tick went wrong',
    );
  });

  it('finds createSchedulerToolpack with a tick method, and nothing where none is exported', async () => {
    const hook = await (await hostFor('controller-toolpacks/scheduler-factory')).schedulerHook();
    expect(await hook?.(tick)).toEqual([
      { kind: 'factory.tick', payload: { same: true, toolpackId: 'scheduler-factory' } },
    ]);
    expect(await (await hostFor('controller-toolpacks/tools-map')).schedulerHook()).toBeUndefined();
  });
});

describe('project store', () => {
  it('shows controllers the config view, the roster and the state dir', async () => {
    const host = await hostFor('controller-toolpacks/store-user');
    const { metadata } = await support(host, 'store-user.describe');
    expect(metadata).toEqual({
      config: {
        channels: ['#ops', '#lobby'],
        communication: { coordinatorAgent: 'pm' },
        scheduler: { timezone: 'UTC' },
      },
      // Suzumio's status (quiet/running/failed); Switchboard's idle/running in switchboardStatus.
      agents: ROSTER.map(({ id, displayName, role, status }) => ({
        id,
        displayName,
        role,
        status: status === 'running' ? 'running' : 'quiet',
        switchboardStatus: status,
      })),
      root: stateDir,
      stateDirectory: path.join(stateDir, 'toolpack-state', 'store-user'),
    });
    const config = projectStore('store-user').config();
    expect(Object.keys(config)).toEqual(['channels', 'communication', 'scheduler']);
    expect(
      Object.isFrozen(config) &&
        Object.isFrozen(config.channels) &&
        Object.isFrozen(config.communication) &&
        Object.isFrozen(config.scheduler),
    ).toBe(true);
    expect(projectStore('store-user', { timezone: 'Europe/Berlin' }).config().scheduler).toEqual({
      timezone: 'Europe/Berlin',
    });
  });

  it('sends a message synchronously and hands it to deliver', async () => {
    const host = await hostFor('controller-toolpacks/store-user');
    const answer = await support(host, 'store-user.notify', { recipient: 'pm', body: 'Build is green.' });
    expect(answer.metadata).toEqual({ promise: false });
    expect(delivered).toEqual([
      {
        id: answer.output,
        sender: 'reviewer',
        recipient: 'pm',
        priority: 'P3',
        body: 'Build is green.',
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        toolpackId: 'store-user',
      },
    ]);
    expect(answer.output).toMatch(/^msg_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

    const direct = projectStore('store-user');
    const sent = direct.sendMessage({
      sender: 'scheduler',
      recipient: undefined,
      channel: '#ops',
      priority: 'P1',
      body: 'Standup.',
    });
    expect(delivered.at(-1)).toMatchObject({ id: sent.id, channel: '#ops', priority: 'P1' });
    expect(delivered.at(-1)).not.toHaveProperty('recipient');
  });

  it('refuses a malformed message, naming the field, before delivering anything', () => {
    const direct = projectStore('store-user');
    const send = (request: Record<string, unknown>) => () => direct.sendMessage(request as never);
    const base = { sender: 'pm', recipient: 'reviewer', body: 'hi' };
    expect(send({ ...base, sender: '' })).toThrow(
      expect.objectContaining({
        code: 'TOOLPACK_CALL_INVALID',
        message: 'sendMessage: sender must be a non-empty string',
      }),
    );
    expect(send({ ...base, channel: '#ops' })).toThrow('give exactly one of recipient and channel');
    expect(send({ sender: 'pm', body: 'hi' })).toThrow('give exactly one of recipient and channel');
    expect(send({ ...base, priority: 'P7' })).toThrow('sendMessage: priority must be one of P0, P1, P2, P3');
    expect(send({ ...base, body: 3 })).toThrow('sendMessage: body must be a non-empty string');
    expect(send({ ...base, recipient: 4 })).toThrow('sendMessage: recipient must be a non-empty string');
    expect(send({ sender: 'pm', channel: '#nowhere', body: 'hi' })).toThrow(
      'sendMessage: channel #nowhere is not a configured route (routes: #ops, #lobby)',
    );
    expect(send({ ...base, recipient: 'reveiwer' })).toThrow(
      'sendMessage: recipient reveiwer is not an agent (agents: pm, reviewer; "user" for the human)',
    );
    // Only a chat sender can be charged for the wake (not the runtime, not an agent).
    expect(send({ ...base, chargedTo: 'system:signals' })).toThrow(
      'sendMessage: chargedTo must be a chat sender id (slack:…, discord:…, webchat:…)',
    );
    expect(delivered).toEqual([]);
    expect(send({ ...base, chargedTo: 'slack:U1' })).not.toThrow();
    expect(delivered.at(-1)).toMatchObject({ recipient: 'reviewer', chargedTo: 'slack:U1' });
    delivered.splice(0);
    // `user` is the human, not an agent: it is accepted.
    expect(send({ ...base, recipient: 'user' })).not.toThrow();
  });

  it('retries a refused delivery, then logs it and reports it failed; the send still answers with the id', async () => {
    let tries = 0;
    const failing = projectStore('store-user', {
      deliver: async () => {
        tries += 1;
        throw new Error('the route is down');
      },
      retry: { attempts: 3, retryDelayMs: 1, backoffFactor: 2 },
      logger: logger(),
    });
    const { id } = failing.sendMessage({ sender: 'pm', channel: '#ops', body: 'hi' });
    expect(id).toMatch(/^msg_/);
    await expect.poll(() => failing.messageStatus(id)?.state).toBe('failed');
    expect(failing.messageStatus(id)).toEqual({ state: 'failed', attempts: 3, error: 'the route is down' });
    expect(tries).toBe(3);
    expect(logLines.filter((entry) => entry.msg === 'toolpack message refused; retried later')).toHaveLength(
      2,
    );
    expect(
      logLines.find((entry) => entry.msg === 'toolpack message not delivered (no attempts left)'),
    ).toMatchObject({ messageId: id, attempts: 3, reason: 'the route is down' });
  });

  it('reports a message posted to a route delivered, one queued for an agent pending, an unknown id undefined', async () => {
    const direct = projectStore('store-user', {
      deliver: (message) => (message.channel === undefined ? 'queued' : 'posted'),
    });
    const posted = direct.sendMessage({ sender: 'pm', channel: '#ops', body: 'hi' });
    const queued = direct.sendMessage({ sender: 'pm', recipient: 'reviewer', body: 'hi' });
    await expect.poll(() => direct.messageStatus(posted.id)?.state).toBe('delivered');
    expect(direct.messageStatus(posted.id)).toEqual({
      state: 'delivered',
      attempts: 1,
      deliveredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    await expect.poll(() => direct.messageStatus(queued.id)?.attempts).toBe(1);
    expect(direct.messageStatus(queued.id)).toEqual({ state: 'pending', attempts: 1 });
    expect(direct.messageStatus('msg_unknown')).toBeUndefined();
    expect(() => direct.messageStatus(42 as never)).toThrow('messageStatus: id must be a non-empty string');
  });

  it('answers hasPendingSignalsForAgent from the queue; without a db from its host, store.db is undefined and its read reported', () => {
    const read: string[] = [];
    const direct = projectStore('store-user', {
      hasPendingSignalsForAgent: (agentId) => agentId === 'pm',
      onUnprovided: (api) => read.push(api),
    });
    expect([direct.hasPendingSignalsForAgent('pm'), direct.hasPendingSignalsForAgent('reviewer')]).toEqual([
      true,
      false,
    ]);
    expect(() => direct.hasPendingSignalsForAgent('' as never)).toThrow(
      'hasPendingSignalsForAgent: agentId must be a non-empty string',
    );
    expect(read).toEqual([]);
    expect(direct.db).toBeUndefined();
    expect(read).toEqual(['store.db']);
  });

  it('keeps each toolpack in its own key/value namespace', async () => {
    const user = await hostFor('controller-toolpacks/store-user');
    const neighbour = await hostFor('controller-toolpacks/store-neighbour');
    await support(user, 'store-user.remember', { key: 'colour', value: { name: 'teal' } });
    expect(await support(user, 'store-user.recall', { key: 'colour' })).toEqual({
      output: { name: 'teal' },
      metadata: { found: true },
    });
    expect((await support(neighbour, 'store-neighbour.recall', { key: 'colour' })).output).toBe('nothing');
    await support(neighbour, 'store-neighbour.remember', { key: 'colour', value: 'red' });
    expect((await support(user, 'store-user.recall', { key: 'colour' })).output).toEqual({ name: 'teal' });
    await support(user, 'store-user.forget', { key: 'colour' });
    expect((await support(user, 'store-user.recall', { key: 'colour' })).output).toBe('nothing');
    expect((await support(neighbour, 'store-neighbour.recall', { key: 'colour' })).output).toBe('red');
  });

  it('stores values as JSON under a namespace name the store accepts', async () => {
    const kv = projectStore('Review.tools_2').kv;
    await kv.set('when', { at: new Date(0), skip: undefined });
    expect(await kv.get('when')).toEqual({ at: '1970-01-01T00:00:00.000Z' });
    await expect(kv.set('nothing', undefined)).rejects.toThrow('kv: value must be JSON-serializable');
    expect(toolpackNamespace('Review.tools_2')).toBe('toolpack--review-0tools-12');
    expect(toolpackNamespace('a-b')).not.toBe(toolpackNamespace('a.b'));
  });
});
