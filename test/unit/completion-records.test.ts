import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import { createCompletionRecords } from '../../src/extensions/toolpacks/index.js';
import { createStore } from '../../src/records/store/index.js';

/** `completion.submit`'s records: stored in `completions`, listed newest first, the latest per agent. */

const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });

describe('completion records', () => {
  it('lists submissions newest first, filters by agent, and gives the latest', async () => {
    const store = await createStore({ url: 'memory://', stateDir: '.', logger });
    let at = Date.parse('2026-03-01T10:00:00.000Z');
    const now = () => {
      at += 1000;
      return new Date(at);
    };
    const records = createCompletionRecords({ store, now });
    expect(await records.latest()).toBeUndefined();
    const first = await records.submit({ agentId: 'pm', report: '# Done\n\nfirst' });
    await records.submit({ agentId: 'dev', report: 'dev report', path: 'artifacts/dev/report.md' });
    const third = await records.submit({ agentId: 'pm', report: 'second' });
    expect((await records.list()).map((record) => record.report)).toEqual([
      'second',
      'dev report',
      '# Done\n\nfirst',
    ]);
    expect(await records.list({ agentId: 'pm' })).toEqual([third, first]);
    expect(await records.latest()).toEqual(third);
    expect(await records.latest('dev')).toMatchObject({ agentId: 'dev', path: 'artifacts/dev/report.md' });
    expect(await records.list({ limit: 1 })).toEqual([third]);
    expect(first).toMatchObject({ agentId: 'pm', submittedAt: '2026-03-01T10:00:01.000Z' });
    expect(await store.namespace('completions').get(first.id)).toEqual(first);
    await store.close();
  });
});
