import { describe, expect, it } from 'vitest';
import { type BudgetsConfig, tokenCost } from '../../src/base/config/index.js';
import { createLogger } from '../../src/base/logging/index.js';
import { parseUsageArgs } from '../../src/engine/routing/commands/usage.js';
import {
  createBudgetGate,
  createUsageLedger,
  lastUsageDays,
  nextUsageDayStart,
  type UsageCall,
  usageDay,
  usageTable,
} from '../../src/engine/usage/index.js';
import { createStore } from '../../src/records/store/index.js';

/** The usage ledger, its days in `budgets.timeZone`, the budget gate and the `/usage` words. */

const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });

async function ledgerAt(iso: string, timeZone = 'UTC') {
  const clock = { now: new Date(iso) };
  const store = await createStore({ url: 'memory://', stateDir: '.', logger });
  const ledger = createUsageLedger({ store, timeZone, now: () => clock.now });
  return { ledger, clock, store };
}

function call(fields: Partial<UsageCall> = {}): UsageCall {
  return {
    agentId: 'main',
    channel: 'webchat',
    senderId: 'webchat:bob',
    model: 'fake',
    inputTokens: 100,
    outputTokens: 20,
    ...fields,
  };
}

const BUDGETS: BudgetsConfig = { timeZone: 'UTC', ownersExempt: true, agents: {}, users: {} };

describe('usage days', () => {
  it('are calendar dates in the zone, across its midnight and its daylight-saving changes', () => {
    expect(usageDay(new Date('2026-12-06T22:59:59Z'), 'Europe/Berlin')).toBe('2026-12-06');
    expect(usageDay(new Date('2026-12-06T23:00:00Z'), 'Europe/Berlin')).toBe('2026-12-07');
    expect(usageDay(new Date('2026-12-06T23:00:00Z'), 'UTC')).toBe('2026-12-06');
    expect(usageDay(new Date('2026-12-07T04:59:59Z'), 'America/New_York')).toBe('2026-12-06');
    // Berlin goes to summer time on 2026-03-29: that day starts at 23:00Z the day before, the next at 22:00Z.
    expect(nextUsageDayStart(new Date('2026-03-28T12:00:00Z'), 'Europe/Berlin').toISOString()).toBe(
      '2026-03-28T23:00:00.000Z',
    );
    expect(nextUsageDayStart(new Date('2026-03-29T12:00:00Z'), 'Europe/Berlin').toISOString()).toBe(
      '2026-03-29T22:00:00.000Z',
    );
    expect(nextUsageDayStart(new Date('2026-10-25T12:00:00Z'), 'Europe/Berlin').toISOString()).toBe(
      '2026-10-25T23:00:00.000Z',
    );
    expect(nextUsageDayStart(new Date('2026-12-06T23:59:59Z'), 'UTC').toISOString()).toBe(
      '2026-12-07T00:00:00.000Z',
    );
  });

  it('of a week are the last seven, today included, across a month end', () => {
    expect(lastUsageDays(new Date('2026-03-02T10:00:00Z'), 'UTC', 7)).toEqual([
      '2026-02-24',
      '2026-02-25',
      '2026-02-26',
      '2026-02-27',
      '2026-02-28',
      '2026-03-01',
      '2026-03-02',
    ]);
  });
});

describe('the usage ledger', () => {
  it('sums every call by agent, channel and user; the runtime counts as one user', async () => {
    const { ledger } = await ledgerAt('2026-12-06T10:00:00Z');
    await ledger.record(call({ cost: 0.5 }));
    await ledger.record(
      call({ agentId: 'ops', channel: 'slack', senderId: 'slack:U1', inputTokens: 7, outputTokens: 3 }),
    );
    await ledger.record(
      call({ senderId: 'system:signals', channel: 'internal', inputTokens: 1, outputTokens: 1 }),
    );
    await ledger.record(call({ senderId: 'session:agent:main:x', inputTokens: 2, outputTokens: 2 }));
    const byAgent = await ledger.report({ period: 'today', by: 'agent' });
    expect(byAgent).toMatchObject({ from: '2026-12-06', to: '2026-12-06', timeZone: 'UTC' });
    expect(byAgent.rows).toEqual([
      { name: 'main', inputTokens: 103, outputTokens: 23, calls: 3, cost: 0.5 },
      { name: 'ops', inputTokens: 7, outputTokens: 3, calls: 1 },
    ]);
    expect(byAgent.total).toEqual({ inputTokens: 110, outputTokens: 26, calls: 4, cost: 0.5 });
    const byUser = await ledger.report({ period: 'today', by: 'user' });
    expect(byUser.rows.map((row) => [row.name, row.calls])).toEqual([
      ['webchat:bob', 1],
      ['slack:U1', 1],
      ['runtime', 2],
    ]);
    const byChannel = await ledger.report({ period: 'today', by: 'channel' });
    expect(byChannel.rows.map((row) => row.name)).toEqual(['webchat', 'slack', 'internal']);
    const own = await ledger.report({ period: 'today', by: 'agent', userId: 'slack:U1' });
    expect(own.rows).toEqual([{ name: 'ops', inputTokens: 7, outputTokens: 3, calls: 1 }]);
    expect(own.total).toEqual({ inputTokens: 7, outputTokens: 3, calls: 1 });
  });

  it('loses no call when many land at once (one read-modify-write at a time per day)', async () => {
    const { ledger } = await ledgerAt('2026-12-06T10:00:00Z');
    await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        ledger.record(call({ senderId: `webchat:u${index % 5}`, inputTokens: index, outputTokens: 1 })),
      ),
    );
    const report = await ledger.report({ period: 'today', by: 'user' });
    expect(report.total).toEqual({ inputTokens: (49 * 50) / 2, outputTokens: 50, calls: 50 });
    expect(report.rows).toHaveLength(5);
  });

  it('puts calls either side of the zone’s midnight in two days; a week counts seven', async () => {
    const { ledger, clock } = await ledgerAt('2026-12-06T22:59:00Z', 'Europe/Berlin');
    await ledger.record(call({ inputTokens: 1, outputTokens: 0 }));
    clock.now = new Date('2026-12-06T23:01:00Z');
    await ledger.record(call({ inputTokens: 10, outputTokens: 0 }));
    expect((await ledger.report({ period: 'today', by: 'agent' })).total.inputTokens).toBe(10);
    const week = await ledger.report({ period: 'week', by: 'agent' });
    expect(week).toMatchObject({ from: '2026-12-01', to: '2026-12-07' });
    expect(week.total.inputTokens).toBe(11);
    clock.now = new Date('2026-12-12T23:30:00Z'); // 2026-12-13 in Berlin: the 6th is 8 days back
    expect((await ledger.report({ period: 'week', by: 'agent' })).total.inputTokens).toBe(10);
  });

  it('keeps a day across a store reopen (the memory store stands in for the file)', async () => {
    const { ledger, store } = await ledgerAt('2026-12-06T10:00:00Z');
    await ledger.record(call());
    const again = createUsageLedger({ store, timeZone: 'UTC', now: () => new Date('2026-12-06T11:00:00Z') });
    expect((await again.report({ period: 'today', by: 'agent' })).total.calls).toBe(1);
  });
});

describe('the budget gate', () => {
  const turn = { agentId: 'main', senderId: 'webchat:bob', isOwner: false };

  it('refuses once a user’s tokens reach the limit, naming it, the spend and the reset', async () => {
    const { ledger } = await ledgerAt('2026-12-06T21:30:00Z', 'Europe/Berlin');
    const gate = createBudgetGate({
      ledger,
      budgets: { ...BUDGETS, timeZone: 'Europe/Berlin', users: { '*': { tokens: 240 } } },
    });
    await ledger.record(call());
    expect(await gate.refusal(turn)).toBeUndefined();
    await ledger.record(call());
    expect(await gate.refusal(turn)).toBe(
      'The daily token budget of user webchat:bob (the limit of each user, *) is spent: 240 tokens today, ' +
        'the limit is 240 tokens. No new turn starts until it resets at midnight Europe/Berlin ' +
        '(2026-12-06T23:00:00Z, in 1 h 30 min).',
    );
    // Another user has spent nothing; the runtime has no user budget.
    expect(await gate.refusal({ ...turn, senderId: 'webchat:carol' })).toBeUndefined();
    expect(await gate.refusal({ ...turn, senderId: 'system:signals' })).toBeUndefined();
  });

  it('refuses an agent’s every turn once its cost is spent; owners pass unless ownersExempt is false', async () => {
    const { ledger } = await ledgerAt('2026-12-06T10:00:00Z');
    const budgets = { ...BUDGETS, agents: { main: { cost: 1 } } };
    await ledger.record(
      call({
        senderId: 'system:signals',
        cost: tokenCost(
          { inputPerMillion: 10_000, outputPerMillion: 0 },
          { inputTokens: 100, outputTokens: 0 },
        ),
      }),
    );
    const gate = createBudgetGate({ ledger, budgets });
    const refusal = await gate.refusal({ ...turn, senderId: 'system:signals' });
    expect(refusal).toMatch(
      /^The daily cost budget of agent "main" is spent: a cost of 1\.0000 today, the limit is 1\.0000\./,
    );
    expect(await gate.refusal({ ...turn, agentId: 'ops' })).toBeUndefined();
    expect(await gate.refusal({ ...turn, senderId: 'webchat:local', isOwner: true })).toBeUndefined();
    const strict = createBudgetGate({ ledger, budgets: { ...budgets, ownersExempt: false } });
    expect(await strict.refusal({ ...turn, isOwner: true })).toMatch(/agent "main" is spent/);
  });

  it('uses a user’s own entry before `*`', async () => {
    const { ledger } = await ledgerAt('2026-12-06T10:00:00Z');
    await ledger.record(call());
    const users = { '*': { tokens: 100 }, 'webchat:bob': { tokens: 1000 } };
    const gate = createBudgetGate({ ledger, budgets: { ...BUDGETS, users } });
    expect(await gate.refusal(turn)).toBeUndefined();
    await ledger.record(call({ senderId: 'webchat:carol' }));
    expect(await gate.refusal({ ...turn, senderId: 'webchat:carol' })).toMatch(
      /user webchat:carol \(the limit/,
    );
  });

  it('takes a person’s limit from an entry of any of their identities, else their role, else `*`; counts the person as one', async () => {
    const { ledger } = await ledgerAt('2026-12-06T10:00:00Z');
    const access = {
      owners: ['webchat:local'],
      people: {
        bob: { role: 'member', identities: ['webchat:bob', 'slack:U2'] },
        dan: { role: 'member', identities: ['slack:U4', 'webchat:dan'] },
        val: { role: 'viewer', identities: ['webchat:val'] },
      },
      roles: { member: { budget: { tokens: 200 } } },
    };
    const users = { '*': { tokens: 100 }, 'webchat:dan': { tokens: 1000 } };
    const gate = createBudgetGate({ ledger, budgets: { ...BUDGETS, users }, access });
    await ledger.record(call({ senderId: 'slack:U2' }));
    await ledger.record(call({ senderId: 'slack:U4' }));
    await ledger.record(call({ senderId: 'webchat:val' }));
    // 120 of Bob's 200: not spent; from either identity.
    expect(await gate.refusal(turn)).toBeUndefined();
    await ledger.record(call());
    for (const senderId of ['webchat:bob', 'slack:U2'])
      expect(await gate.refusal({ ...turn, senderId })).toMatch(
        /^The daily token budget of person bob \(role member: roles\.member\.budget\) is spent: 240 tokens today, the limit is 200 tokens\./,
      );
    // Dan's entry is on his other identity: it wins over his role's.
    expect(await gate.refusal({ ...turn, senderId: 'slack:U4' })).toBeUndefined();
    // The viewer's role has no budget: `*` applies, to the person.
    expect(await gate.refusal({ ...turn, senderId: 'webchat:val' })).toMatch(
      /^The daily token budget of person val \(the limit of each user, \*\) is spent: 120 tokens/,
    );
    // A sender no person lists is a member: the role's budget, not `*`.
    await ledger.record(call({ senderId: 'webchat:carol' }));
    expect(await gate.refusal({ ...turn, senderId: 'webchat:carol' })).toBeUndefined();
    await ledger.record(call({ senderId: 'webchat:carol' }));
    expect(await gate.refusal({ ...turn, senderId: 'webchat:carol' })).toMatch(
      /^The daily token budget of user webchat:carol \(role member: roles\.member\.budget\) is spent/,
    );
  });
});

describe('/usage words and table', () => {
  it('take a period and a grouping in any order, and name a bad word with the accepted ones', () => {
    expect(parseUsageArgs('')).toEqual({ period: 'today', by: 'agent' });
    expect(parseUsageArgs('User WEEK')).toEqual({ period: 'week', by: 'user' });
    expect(parseUsageArgs('month')).toBe(
      '/usage does not know "month": the period is today or week, the grouping agent, channel, user.',
    );
    expect(parseUsageArgs('today week')).toBe('Give one period, not both "today" and "week".');
    expect(parseUsageArgs('agent user')).toBe('Group by one thing, not both "agent" and "user".');
  });

  it('is a table with totals, and a cost column only when a call had a price', async () => {
    const { ledger } = await ledgerAt('2026-12-06T10:00:00Z');
    await ledger.record(call({ inputTokens: 1200, outputTokens: 300 }));
    await ledger.record(call({ agentId: 'ops', inputTokens: 5, outputTokens: 5 }));
    expect(usageTable(await ledger.report({ period: 'today', by: 'agent' }))).toBe(
      [
        'Usage today (2026-12-06, UTC), by agent:',
        '```',
        'agent  calls  input  output',
        'main       1  1,200     300',
        'ops        1      5       5',
        'total      2  1,205     305',
        '```',
      ].join('\n'),
    );
    await ledger.record(call({ cost: 0.0125 }));
    expect(usageTable(await ledger.report({ period: 'week', by: 'agent' }))).toContain(
      'agent  calls  input  output    cost\nmain       2  1,300     320  0.0125\nops        1      5       5       -\ntotal      3  1,305     325  0.0125',
    );
    const empty = await ledgerAt('2026-12-06T10:00:00Z');
    expect(usageTable(await empty.ledger.report({ period: 'week', by: 'user' }))).toBe(
      'Usage in the last 7 days (2026-11-30 to 2026-12-06, UTC), by user:\nNo model calls are recorded for this period.',
    );
  });
});
