import { describe, expect, it } from 'vitest';
import { resolvePrincipal } from '../../src/base/access/index.js';
import { createLogger } from '../../src/base/logging/index.js';
import { createUsageLedger, type UsageCall } from '../../src/engine/usage/index.js';
import { createStore } from '../../src/records/store/index.js';

/** Issue 34 item 3: /usage counts a linked person's identities as one user. */

const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });
const access = {
  owners: [],
  roles: {},
  people: { ann: { role: 'member', identities: ['slack:U1', 'discord:D1'] } },
};

function call(senderId: string, inputTokens: number): UsageCall {
  return {
    agentId: 'main',
    channel: senderId.split(':')[0] ?? '',
    senderId,
    model: 'fake',
    inputTokens,
    outputTokens: 1,
  };
}

describe('usage of linked identities', () => {
  it('is one user’s, in the rows by user and in a user’s own report', async () => {
    const store = await createStore({ url: 'memory://', stateDir: '.', logger });
    const ledger = createUsageLedger({
      store,
      timeZone: 'UTC',
      now: () => new Date('2026-12-06T10:00:00Z'),
      personOf: (userId) => resolvePrincipal(access, userId).personId,
    });
    await ledger.record(call('slack:U1', 100));
    await ledger.record(call('discord:D1', 50));
    await ledger.record(call('slack:U2', 10));
    const byUser = await ledger.report({ period: 'today', by: 'user' });
    expect(byUser.rows.map((row) => [row.name, row.inputTokens, row.calls])).toEqual([
      ['person:ann', 150, 2],
      ['slack:U2', 10, 1],
    ]);
    const own = await ledger.report({ period: 'today', by: 'channel', userId: 'discord:D1' });
    expect(own.rows.map((row) => [row.name, row.inputTokens])).toEqual([
      ['slack', 100],
      ['discord', 50],
    ]);
    expect(own.total.inputTokens).toBe(150);
    await store.close();
  });
});
