import { describe, expect, it } from 'vitest';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startTestGateway } from '../helpers/gateway.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * Issue 34 item 1, budgets: a person's daily budget comes from their role (`roles.<name>.budget`)
 * and counts every identity of that person as one; a `budgets.users` entry naming one of the
 * person's identities wins over the role's; a sender no person lists has the default role
 * (`member`) and its budget; owners stay exempt. Through the real web chat route, the router,
 * the agent runner and the real OpenAI SDK against a fake that reports known tokens.
 */

const cleanups = cleanupAfterEach();
/** Each turn is one model call of 70 tokens; the member role may spend 50 a day. */
const CALL = { inputTokens: 60, outputTokens: 10 };
const NOW = new Date('2026-12-07T12:00:00Z');

async function setup() {
  const model = await startFakeOpenAIServer({ defaultStep: { text: 'ok', usage: CALL } });
  cleanups.push(() => model.close());
  const gateway = await startTestGateway({
    config: {
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, stream: false } },
      agents: { main: { model: 'fake' } },
      roles: { member: { budget: { tokens: 50 } } },
      budgets: { users: { 'webchat:dan': { tokens: 1000 } } },
      people: {
        ann: { role: 'owner', identities: ['webchat:ann'] },
        // Linked: two identities, one person, one budget.
        bob: { role: 'member', identities: ['webchat:bob', 'webchat:robert'] },
        dan: { role: 'member', identities: ['webchat:dan', 'webchat:daniel'] },
      },
    },
    now: () => NOW,
  });
  cleanups.push(() => gateway.dispose());
  return { gateway, model };
}

const lastText = (response: { body: any }): string => response.body.replies.at(-1)?.text;

describe('role budgets', () => {
  it('refuses a member once their role’s budget is spent, counting their linked identities as one person', async () => {
    const { gateway, model } = await setup();
    expect(lastText(await gateway.send('first', 'bob'))).toBe('ok');
    // Robert is Bob: the 70 tokens Bob spent count, and a new turn is refused before any model call.
    const refused = lastText(await gateway.send('second', 'robert'));
    expect(refused).toMatch(
      /^The daily token budget of person bob \(role member: roles\.member\.budget\) is spent: 70 tokens today, the limit is 50 tokens\. No new turn starts until it resets at midnight UTC/,
    );
    expect(lastText(await gateway.send('third', 'bob'))).toBe(refused);
    expect(model.requests).toHaveLength(1);
  });

  it('gives a sender no person lists the default role’s budget, and lets a budgets.users entry of a person win', async () => {
    const { gateway, model } = await setup();
    expect(lastText(await gateway.send('first', 'carol'))).toBe('ok');
    expect(lastText(await gateway.send('second', 'carol'))).toMatch(
      /^The daily token budget of user webchat:carol \(role member: roles\.member\.budget\) is spent: 70 tokens today, the limit is 50 tokens\./,
    );
    // Dan's own entry (on one of his identities) wins over his role's 50, for both identities.
    for (const user of ['dan', 'daniel', 'dan']) expect(lastText(await gateway.send('go', user))).toBe('ok');
    // Owners stay exempt: the role budget is never theirs.
    for (let turn = 0; turn < 3; turn += 1) expect(lastText(await gateway.send('go', 'ann'))).toBe('ok');
    expect(model.requests).toHaveLength(7);
  });
});
