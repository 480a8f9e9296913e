import { describe, expect, it } from 'vitest';
import {
  createStoreDb,
  STORE_DB_MAX_ROWS,
  type StoreDbSignal,
} from '../../src/extensions/toolpacks/index.js';

const signal = (n: number, status: 'pending' | 'delivered' = 'pending'): StoreDbSignal => ({
  id: `sig_${n}`,
  kind: 'plan.continuation_nudge',
  source: 'toolpack:plan',
  targetAgent: 'pm',
  priority: 'P2',
  status,
  payload: { planId: `pln_${n}` },
  createdAt: new Date(Date.UTC(2030, 0, 1, 0, 0, n)).toISOString(),
  ...(status === 'delivered' ? { deliveredAt: '2030-01-01T01:00:00.000Z' } : {}),
});

describe('store.db (Suzumio tables over Switchboard records)', () => {
  it("answers Suzumio's SQL from the current records, in its column names", () => {
    const rows: StoreDbSignal[] = [signal(1), signal(2, 'delivered')];
    const db = createStoreDb({
      project: 'proj',
      signals: () => rows,
      messages: () => [
        {
          id: 'msg_1',
          sender: 'ops',
          recipient: 'pm',
          priority: 'P3',
          body: 'hi',
          createdAt: '2030-01-01T00:00:00Z',
        },
      ],
      activations: () => [
        { id: 'run_1', agentId: 'pm', status: 'completed', startedAt: '2030-01-01T00:00:00Z' },
      ],
    });
    const pending = db.prepare(
      "SELECT payload_json FROM signals WHERE project = ? AND kind = ? AND target_agent = ? AND status = 'pending'",
    );
    expect(pending.all('proj', 'plan.continuation_nudge', 'pm')).toEqual([
      { payload_json: '{"planId":"pln_1"}' },
    ]);
    // Kept current: the same prepared statement sees a record added later.
    rows.push(signal(3));
    expect(pending.all('proj', 'plan.continuation_nudge', 'pm')).toHaveLength(2);
    expect(db.prepare("SELECT delivered_at FROM signals WHERE status = 'delivered'").get()).toEqual({
      delivered_at: '2030-01-01T01:00:00.000Z',
    });
    expect(db.prepare('SELECT sender, recipient, body FROM messages').all()).toEqual([
      { sender: 'ops', recipient: 'pm', body: 'hi' },
    ]);
    expect(db.prepare('SELECT agent_id, status FROM activations').get()).toEqual({
      agent_id: 'pm',
      status: 'completed',
    });
  });

  it('refuses writes and names the rule; refuses a table Switchboard does not keep, naming its tables', () => {
    const db = createStoreDb({ project: 'proj', signals: () => [signal(1)] });
    expect(() => db.prepare("UPDATE signals SET status = 'delivered'")).toThrow(
      /store\.db is read-only: only SELECT statements are allowed/,
    );
    expect(() => db.prepare('DELETE FROM signals')).toThrow(/read-only/);
    expect(() => db.exec('DROP TABLE signals')).toThrow(/read-only/);
    expect(() => db.prepare('SELECT * FROM agent_history')).toThrow(
      'store.db: Switchboard keeps no table "agent_history" (its tables: signals, messages, activations); see docs/toolpack-store.md',
    );
    expect(db.prepare('SELECT count(*) AS n FROM signals').get()).toEqual({ n: 1 });
  });

  it(`holds the newest ${STORE_DB_MAX_ROWS} rows of a table`, () => {
    const rows = Array.from({ length: STORE_DB_MAX_ROWS + 5 }, (_, n) => signal(n));
    const db = createStoreDb({ project: 'proj', signals: () => rows });
    expect(db.prepare('SELECT count(*) AS n FROM signals').get()).toEqual({ n: STORE_DB_MAX_ROWS });
    expect(db.prepare("SELECT id FROM signals WHERE id = 'sig_0'").get()).toBeUndefined();
  });
});
