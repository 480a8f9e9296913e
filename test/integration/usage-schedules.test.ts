import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startTestGateway } from '../helpers/gateway.js';
import { SCHEDULER_DIR } from '../helpers/scheduler-host.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * A schedule is charged to the user whose turn made it: the packaged scheduler keeps them with
 * the job (jobs.json), each firing's wake turn counts to their budget, and a spent budget refuses
 * that turn before any model call. (usage.test.ts fixes the gateway's clock; the scheduler needs
 * the real one, hence a file of its own.)
 */

const cleanups = cleanupAfterEach();
const CALL = { inputTokens: 20, outputTokens: 10 };

/**
 * A gateway with the scheduler and a 30-token budget per user, where Bob's first turn spends
 * more than that and makes a job firing 100 ms later. Returns the main session's transcript.
 */
async function bobSchedulesAStretch(config: Record<string, unknown> = {}) {
  const model = await startFakeOpenAIServer({ defaultStep: { text: 'ok', usage: CALL } });
  cleanups.push(() => model.close());
  const gateway = await startTestGateway({
    config: {
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, stream: false } },
      agents: { main: { model: 'fake' } },
      tools: { toolpacks: [{ path: SCHEDULER_DIR, id: 'scheduler' }] },
      scheduler: { tickMs: 50 },
      gateway: { drainTimeoutMs: 200 },
      // Spent by Bob's first call (counted before schedule.once runs): the firing is refused
      // whether it comes before or after his turn's second call.
      budgets: { users: { '*': { tokens: 30 } } },
      ...config,
    },
  });
  cleanups.push(() => gateway.dispose());
  model.push({
    toolCalls: [
      { name: 'schedule.once', arguments: { afterMs: 100, recipient: 'main', body: 'time to stretch' } },
    ],
    usage: CALL,
  });
  const made = await gateway.send('remind me to stretch', 'bob');
  expect(made.body.replies.at(-1).text).toBe('ok');
  const transcript = async (): Promise<string[]> =>
    (
      await gateway.request('GET', `/api/sessions/${encodeURIComponent('agent:main:main')}/transcript`)
    ).body.entries?.map((entry: { role: string; text: string }) => `${entry.role}: ${entry.text}`) ?? [];
  return { model, gateway, transcript };
}

describe('a schedule made by a user', () => {
  it("wakes its agent at that user's cost: refused before any model call once their budget is spent", async () => {
    const { model, gateway, transcript } = await bobSchedulesAStretch();
    const jobs = JSON.parse(
      await readFile(path.join(gateway.dir, 'data', 'toolpack-state', 'scheduler', 'jobs.json'), 'utf8'),
    );
    expect(jobs.jobs).toEqual([
      expect.objectContaining({ body: 'time to stretch', chargedTo: 'webchat:bob' }),
    ]);
    await expect
      .poll(async () => (await transcript()).at(-1), { timeout: 20_000 })
      .toMatch(
        /^system: The daily token budget of user webchat:bob \(the limit of each user, \*\) is spent: (30|60) tokens/,
      );
    expect(model.requests).toHaveLength(2);
    const byUser = await gateway.request('GET', '/api/usage?by=user');
    expect(byUser.body.rows.map((row: { name: string }) => row.name)).toEqual(['webchat:bob']);
  });

  it('wakes it for a person whose role is owner: exempt like their own messages, not only when owners names them', async () => {
    // As an owner by role Bob is exempt, and so is his job's wake.
    const { model, transcript } = await bobSchedulesAStretch({
      people: { bob: { role: 'owner', identities: ['webchat:bob'] } },
    });
    // The wake ends either answered or refused for the budget.
    await expect
      .poll(async () => (await transcript()).at(-1) ?? '', { timeout: 20_000 })
      .toMatch(/^(assistant: ok|system: The daily token budget)/);
    expect((await transcript()).at(-1)).toBe('assistant: ok');
    expect(model.requests).toHaveLength(3);
  });
});
