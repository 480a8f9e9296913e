import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { tokenCost } from '../../src/base/config/index.js';
import { createLogger } from '../../src/base/logging/index.js';
import type { Tool } from '../../src/engine/tools/index.js';
import type { RunRecord } from '../../src/records/sessions/index.js';
import { createStore } from '../../src/records/store/index.js';
import type { FakeModelServer, FakeStep } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startTestGateway, TEST_TOKEN, type TestGateway } from '../helpers/gateway.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * Usage and budgets end to end: web chat → router → agent runner → the real OpenAI SDK → a fake
 * model server that reports known token counts; `/usage`, `GET /api/usage` and the run records
 * count exactly what it reported, and a spent budget refuses the next turn before any model call.
 */

const cleanups = cleanupAfterEach();
const PRICE = { inputPerMillion: 3, outputPerMillion: 15 };
const BOB_TOKEN = 'bob-token-0123456789abcdef';
const NOW = new Date('2026-12-06T21:30:00Z');

const echoTool: Tool = {
  name: 'echo',
  description: 'Answers ok.',
  parameters: Type.Object({}),
  execute: () => ({ ok: true }),
};

async function setup(config: Record<string, unknown>, defaultStep?: FakeStep) {
  const model = await startFakeOpenAIServer(defaultStep ? { defaultStep } : {});
  cleanups.push(() => model.close());
  const gateway = await startTestGateway({
    config: {
      http: { port: 0, token: TEST_TOKEN, users: { bob: { token: BOB_TOKEN } } },
      // Not streamed (streamed usage is covered by usage-estimated.test.ts).
      models: {
        fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, stream: false, price: PRICE },
      },
      agents: { main: { model: 'fake' } },
      ...config,
    },
    tools: [echoTool],
    now: () => NOW,
  });
  cleanups.push(() => gateway.dispose());
  return { gateway, model };
}

function texts(response: { body: any }): string[] {
  return response.body.replies.map((reply: { text: string }) => reply.text);
}

/** The calls the fake is scripted with, and what each reported. */
const LOCAL_CALLS = [
  { toolCalls: [{ name: 'echo', arguments: {} }], usage: { inputTokens: 1000, outputTokens: 50 } },
  { text: 'done', usage: { inputTokens: 1200, outputTokens: 30 } },
];
const BOB_CALL = { text: 'hi bob', usage: { inputTokens: 300, outputTokens: 7 } };

function costOf(steps: { usage: { inputTokens: number; outputTokens: number } }[]): number {
  return steps.reduce((sum, step) => sum + tokenCost(PRICE, step.usage), 0);
}

async function turns(gateway: TestGateway, model: FakeModelServer) {
  model.push(...LOCAL_CALLS, BOB_CALL);
  expect(texts(await gateway.send('use the tool'))).toEqual(['done']);
  expect(texts(await gateway.send('hello', 'bob'))).toEqual(['hi bob']);
  expect(model.requests).toHaveLength(3);
}

describe('usage', () => {
  it('counts exactly what the model reported, in /usage, the API and the run records', async () => {
    const { gateway, model } = await setup({});
    await turns(gateway, model);
    const byUser = await gateway.request('GET', '/api/usage?period=today&by=user');
    expect(byUser.status).toBe(200);
    expect(byUser.body).toMatchObject({ period: 'today', by: 'user', timeZone: 'UTC', from: '2026-12-06' });
    const [local, bob] = byUser.body.rows;
    expect(local).toMatchObject({ name: 'webchat:local', inputTokens: 2200, outputTokens: 80, calls: 2 });
    expect(local.cost).toBeCloseTo(costOf(LOCAL_CALLS), 12);
    expect(bob).toMatchObject({ name: 'webchat:bob', inputTokens: 300, outputTokens: 7, calls: 1 });
    expect(bob.cost).toBeCloseTo(costOf([BOB_CALL]), 12);
    expect(byUser.body.total).toMatchObject({ inputTokens: 2500, outputTokens: 87, calls: 3 });

    const table = texts(await gateway.send('/usage today'))[0];
    expect(table).toContain('Usage today (2026-12-06, UTC), by agent:');
    expect(table).toContain('main       3  2,500      87  0.0088');
    expect(table).toContain('total      3  2,500      87  0.0088');
    const week = texts(await gateway.send('/usage channel week'))[0];
    expect(week).toContain('webchat      3  2,500      87  0.0088');

    // A user who is not an owner sees their own usage only, and is told so.
    const own = texts(await gateway.send('/usage user', 'bob'))[0];
    expect(own).toContain(
      'Only your own usage (webchat:bob) is shown; role member sees its own only (roles.member.sees: own).',
    );
    expect(own).toContain('webchat:bob      1    300       7  0.0010');
    expect(own).not.toContain('webchat:local');

    await gateway.stop();
    const runs = await storedRuns(gateway);
    expect(
      runs.map((run) => run.usage).sort((a, b) => (a?.inputTokens ?? 0) - (b?.inputTokens ?? 0)),
    ).toEqual([
      { inputTokens: 300, outputTokens: 7, cost: costOf([BOB_CALL]) },
      { inputTokens: 2200, outputTokens: 80, cost: expect.closeTo(costOf(LOCAL_CALLS), 12) },
    ]);
  });

  it('keeps the calls of a run that fails after them', async () => {
    const { gateway, model } = await setup({});
    model.push(LOCAL_CALLS[0] as FakeStep, { status: 400, errorMessage: 'bad request' });
    await gateway.send('use the tool');
    expect(model.requests).toHaveLength(2);
    const usage = await gateway.request('GET', '/api/usage');
    expect(usage.body.total).toMatchObject({ inputTokens: 1000, outputTokens: 50, calls: 1 });
    await gateway.stop();
    const [run] = await storedRuns(gateway);
    expect(run).toMatchObject({ status: 'error', usage: { inputTokens: 1000, outputTokens: 50 } });
  });

  it('counts the turns a user caused (their sub-agent, its announcement) to that user and the agent', async () => {
    const { gateway, model } = await setup({}, { text: 'ok', usage: { inputTokens: 100, outputTokens: 50 } });
    model.push({
      toolCalls: [{ name: 'sessions_spawn', arguments: { task: 'count', label: 'counter' } }],
      usage: { inputTokens: 100, outputTokens: 50 },
    });
    await gateway.send('spawn one');
    // The parent's two calls, the child's answer and the parent's turn on its announcement.
    await expect
      .poll(async () => (await gateway.request('GET', '/api/usage')).body.total.calls, { timeout: 20_000 })
      .toBe(4);
    const byUser = await gateway.request('GET', '/api/usage?by=user');
    expect(byUser.body.rows.map((row: { name: string; calls: number }) => [row.name, row.calls])).toEqual([
      ['webchat:local', 4],
    ]);
    const byAgent = await gateway.request('GET', '/api/usage?by=agent');
    expect(byAgent.body.rows).toEqual([
      { name: 'main', inputTokens: 400, outputTokens: 200, calls: 4, cost: expect.any(Number) },
    ]);
  });

  it("charges a user's sub-agent and its announcement to them, and refuses them before any model call once spent", async () => {
    const call = { inputTokens: 20, outputTokens: 10 };
    const { gateway, model } = await setup(
      { budgets: { users: { '*': { tokens: 75 } } } },
      { text: 'ok', usage: call },
    );
    model.push({ toolCalls: [{ name: 'sessions_spawn', arguments: { task: 'count' } }], usage: call });
    // Bob's turn: 60 tokens. The child starts under the limit (its call makes 90); the announcement
    // turn, Bob's too, is refused before its model call.
    const spawned = await gateway.send('spawn one', 'bob');
    expect(texts(spawned)).toEqual(['ok']);
    const transcript = async () =>
      (
        await gateway.request(
          'GET',
          `/api/sessions/${encodeURIComponent(spawned.body.sessionKey)}/transcript`,
        )
      ).body.entries.map((entry: { role: string; text: string }) => `${entry.role}: ${entry.text}`);
    await expect
      .poll(async () => (await transcript()).at(-1), { timeout: 20_000 })
      .toMatch(
        /^system: The daily token budget of user webchat:bob \(the limit of each user, \*\) is spent: 90 tokens/,
      );
    expect(model.requests).toHaveLength(3);
    const byUser = await gateway.request('GET', '/api/usage?by=user');
    expect(byUser.body.rows.map((row: { name: string; calls: number }) => [row.name, row.calls])).toEqual([
      ['webchat:bob', 3],
    ]);
  });

  it('charges the wake turn of a messages.send to its sender, and refuses it when their budget is spent', async () => {
    const call = { inputTokens: 20, outputTokens: 10 };
    const { gateway, model } = await setup(
      {
        agents: { main: { model: 'fake' }, helper: { model: 'fake' } },
        tools: { toolpacks: ['core'] },
        scheduler: { tickMs: 50 },
        // Spent by Bob's first call, counted before its messages.send runs: the wake is refused
        // whether it starts before or after his turn's second call.
        budgets: { users: { '*': { tokens: 30 } } },
      },
      { text: 'ok', usage: call },
    );
    model.push({
      toolCalls: [{ name: 'messages.send', arguments: { recipient: 'helper', body: 'do the thing' } }],
      usage: call,
    });
    expect(texts(await gateway.send('ask helper', 'bob'))).toEqual(['ok']);
    const transcript = async () =>
      (
        await gateway.request('GET', `/api/sessions/${encodeURIComponent('agent:helper:main')}/transcript`)
      ).body.entries?.map((entry: { role: string; text: string }) => `${entry.role}: ${entry.text}`) ?? [];
    await expect
      .poll(async () => (await transcript()).at(-1), { timeout: 20_000 })
      .toMatch(
        /^system: The daily token budget of user webchat:bob \(the limit of each user, \*\) is spent: (30|60) tokens/,
      );
    expect(model.requests).toHaveLength(2);
  });

  it('refuses a bad /usage word or query key, naming it, and the API to anyone but an owner', async () => {
    const { gateway } = await setup({});
    expect(texts(await gateway.send('/usage month'))[0]).toBe(
      '/usage does not know "month": the period is today or week, the grouping agent, channel, user.\n' +
        'Usage: /usage [today|week] [agent|channel|user]',
    );
    const badPeriod = await gateway.request('GET', '/api/usage?period=month');
    expect(badPeriod).toMatchObject({
      status: 400,
      body: { field: 'period', message: 'period: "month" is not one of today, week' },
    });
    const badBy = await gateway.request('GET', '/api/usage?by=model');
    expect(badBy).toMatchObject({ status: 400, body: { field: 'by' } });
    const unknown = await gateway.request('GET', '/api/usage?days=3');
    expect(unknown).toMatchObject({
      status: 400,
      body: { field: 'days', message: 'days: is not a known field' },
    });
    const asBob = await fetch(`${gateway.url}/api/usage`, {
      headers: { authorization: `Bearer ${BOB_TOKEN}`, connection: 'close' },
    });
    expect(asBob.status).toBe(403);
    const empty = await gateway.request('GET', '/api/usage');
    expect(empty.body).toMatchObject({ period: 'today', by: 'agent', rows: [], total: { calls: 0 } });
  });
});

describe('budgets', () => {
  it('refuse the next turn once spent, before any model call; owners are exempt by default', async () => {
    const { gateway, model } = await setup(
      {
        budgets: {
          timeZone: 'Europe/Berlin',
          agents: { main: { tokens: 450 } },
          users: { '*': { tokens: 150 } },
        },
        http: {
          port: 0,
          token: TEST_TOKEN,
          users: { bob: { token: BOB_TOKEN } },
        },
      },
      { text: 'ok', usage: { inputTokens: 100, outputTokens: 50 } },
    );
    expect(texts(await gateway.send('one', 'bob'))).toEqual(['ok']);
    const refused = await gateway.send('two', 'bob');
    const userRefusal =
      'The daily token budget of user webchat:bob (the limit of each user, *) is spent: 150 tokens today, ' +
      'the limit is 150 tokens. No new turn starts until it resets at midnight Europe/Berlin ' +
      '(2026-12-06T23:00:00Z, in 1 h 30 min).';
    expect(texts(refused)).toEqual([userRefusal]);
    expect(model.requests).toHaveLength(1);
    const transcript = await gateway.request(
      'GET',
      `/api/sessions/${encodeURIComponent(refused.body.sessionKey)}/transcript`,
    );
    expect(transcript.body.entries.at(-1)).toMatchObject({ role: 'system', text: userRefusal });

    expect(texts(await gateway.send('hi', 'carol'))).toEqual(['ok']);
    expect(texts(await gateway.send('hi'))).toEqual(['ok']);
    expect(model.requests).toHaveLength(3);
    // 450 tokens today: the agent's budget is spent for everyone but an owner.
    expect(texts(await gateway.send('hi', 'dave'))[0]).toMatch(
      /^The daily token budget of agent "main" is spent: 450 tokens today, the limit is 450 tokens\./,
    );
    expect(model.requests).toHaveLength(3);
    expect(texts(await gateway.send('still me'))).toEqual(['ok']);
    expect(model.requests).toHaveLength(4);
  });
});

async function storedRuns(gateway: TestGateway): Promise<RunRecord[]> {
  const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });
  const store = await createStore({ url: undefined, stateDir: path.join(gateway.dir, 'data'), logger });
  try {
    const runs: RunRecord[] = [];
    for await (const [, run] of store.namespace<RunRecord>('runs').entries()) runs.push(run);
    return runs;
  } finally {
    await store.close();
  }
}
