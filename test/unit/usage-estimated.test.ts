import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import { createUsageLedger, type UsageCall, usageTable } from '../../src/engine/usage/index.js';
import { createStore } from '../../src/records/store/index.js';

/** Estimated usage in the ledger: counted like reported tokens, and the estimated calls said so. */

const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });

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

describe('estimated usage', () => {
  it('is summed with reported usage, counted per row and in the total, and noted under /usage', async () => {
    const store = await createStore({ url: 'memory://', stateDir: '.', logger });
    const ledger = createUsageLedger({ store, timeZone: 'UTC', now: () => new Date('2026-12-06T10:00:00Z') });
    await ledger.record(call());
    await ledger.record(call({ estimated: true, inputTokens: 50, outputTokens: 4 }));
    await ledger.record(call({ agentId: 'ops', estimated: true, inputTokens: 7, outputTokens: 1 }));
    const report = await ledger.report({ period: 'today', by: 'agent' });
    expect(report.rows).toEqual([
      { name: 'main', inputTokens: 150, outputTokens: 24, calls: 2, estimatedCalls: 1 },
      { name: 'ops', inputTokens: 7, outputTokens: 1, calls: 1, estimatedCalls: 1 },
    ]);
    expect(report.total).toEqual({ inputTokens: 157, outputTokens: 25, calls: 3, estimatedCalls: 2 });
    expect(usageTable(report)).toBe(
      [
        'Usage today (2026-12-06, UTC), by agent:',
        '```',
        'agent  calls  input  output',
        'main       2    150      24',
        'ops        1      7       1',
        'total      3    157      25',
        '```',
        '2 of 3 calls estimated (about 4 characters a token): their model server reported no usage.',
      ].join('\n'),
    );
    await store.close();
  });

  it('is absent from reports of reported usage only', async () => {
    const store = await createStore({ url: 'memory://', stateDir: '.', logger });
    const ledger = createUsageLedger({ store, timeZone: 'UTC' });
    await ledger.record(call());
    const report = await ledger.report({ period: 'today', by: 'user' });
    expect(report.total).toEqual({ inputTokens: 100, outputTokens: 20, calls: 1 });
    expect(usageTable(report)).not.toContain('estimated');
    await store.close();
  });
});
