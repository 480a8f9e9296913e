import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { pollUntil, REPO_ROOT } from '../helpers/process.js';

// A toolpack whose schedulerTick throws on every call (here: it asks `store.db` about a table
// Switchboard does not keep) must not fill the log twice a second
// forever: it is logged once per distinct error, retried with a growing delay, and its state is
// shown in GET /api/toolpacks (which doctor and the Tools page read).

const FAILING = path.join(REPO_ROOT, 'test/fixtures/controller-toolpacks/failing-tick');
const TICK_MS = 50;

let gateway: TestGateway | undefined;

afterEach(async () => {
  await gateway?.dispose();
  gateway = undefined;
});

interface HookHealth {
  toolpackId: string;
  status: 'ok' | 'failing';
  error?: string;
  failures: number;
  since?: string;
  backoffMs?: number;
  nextAttemptAt?: string;
}

async function hookHealth(target: TestGateway): Promise<HookHealth | undefined> {
  const { body } = await target.request('GET', '/api/toolpacks');
  return (body.schedulerHooks as HookHealth[]).find((hook) => hook.toolpackId === 'failing-tick');
}

const logged = (target: TestGateway, text: string) =>
  target.logLines.filter((line) => line.includes(text) && line.includes('failing-tick'));

describe('a failing toolpack schedulerTick', () => {
  it('is logged once per distinct error, backed off, and reported in /api/toolpacks', async () => {
    gateway = await startTestGateway({
      config: {
        tools: { toolpacks: ['core', { path: FAILING, id: 'failing-tick' }] },
        scheduler: { tickMs: TICK_MS },
      },
    });
    const current = gateway;
    // Six failures: the first three one error (the table store.db lacks), the next three another.
    const health = await pollUntil(
      'six failures of the hook',
      async () => {
        const found = await hookHealth(current);
        return found && found.failures >= 6 ? found : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    expect(health).toMatchObject({ status: 'failing' });
    expect(health.error).toContain('plan.db is locked');
    expect(Date.parse(String(health.since))).toBeGreaterThan(0);
    // The wait doubles from one tick with every failure in a row.
    expect(health.backoffMs).toBe(TICK_MS * 2 ** (health.failures - 1));
    expect(Date.parse(String(health.nextAttemptAt))).toBeGreaterThan(Date.parse(String(health.since)));

    const failures = logged(current, 'scheduler hook failed');
    expect(failures).toHaveLength(2);
    expect(failures[0]).toContain('Switchboard keeps no table \\"agent_history\\"');
    expect(failures[1]).toContain('plan.db is locked');
    // The controller host no longer logs every failed tick a second time.
    expect(logged(current, 'toolpack controller handler failed')).toEqual([]);
  }, 90_000);

  it('reports a hook that runs as ok', async () => {
    const fixture = path.join(REPO_ROOT, 'test/fixtures/controller-toolpacks/scheduler-tick');
    gateway = await startTestGateway({
      config: {
        tools: { toolpacks: ['core', { path: fixture, id: 'scheduler-tick' }] },
        scheduler: { tickMs: TICK_MS },
      },
    });
    const current = gateway;
    const health = await pollUntil('a tick of the hook', async () => {
      const { body } = await current.request('GET', '/api/toolpacks');
      const hooks = body.schedulerHooks as HookHealth[];
      return hooks.find((hook) => hook.toolpackId === 'scheduler-tick' && hook.status === 'ok');
    });
    expect(health).toMatchObject({ status: 'ok', failures: 0 });
    expect(health.error).toBeUndefined();
  });
});
