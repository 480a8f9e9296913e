import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gate, startSessionScriptedModel } from '../fakes/subagent-script.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { REPO_ROOT } from '../helpers/process.js';
import { cleanupAfterEach } from '../helpers/teardown.js';
import { openEvents } from '../helpers/webchat-events.js';

/**
 * The store surface a controller sees (docs/toolpack-store.md) in a running gateway, through the
 * real Tools API (a WebUI-only fixture toolpack over `context.store`): message receipts (a route
 * that refuses → `failed` after the retries; a message to an agent `pending` until the wake turn
 * carrying it starts, then `delivered`; both kept across a restart), `hasPendingSignalsForAgent`,
 * `config().scheduler.timezone`, and `store.db` (a read-only SQL view, docs/toolpack-store.md).
 */

const RECEIPTS = path.join(REPO_ROOT, 'test/fixtures/webui-toolpacks/receipts');
/** A scheduler hook that asks `store.db` about a table Switchboard does not keep. */
const READS_DB = path.join(REPO_ROOT, 'test/fixtures/controller-toolpacks/failing-tick');
const OPS = 'agent:ops:main';
const cleanups = cleanupAfterEach();

async function setup() {
  const { model, script, requestsOf } = await startSessionScriptedModel(cleanups);
  const gateway: TestGateway = await startTestGateway({
    config: {
      tools: { toolpacks: ['core', { path: RECEIPTS, id: 'receipts' }] },
      // #dead names a Discord channel, and no Discord adapter runs: every post there is refused.
      routes: { '#lobby': 'webchat:local', '#dead': 'discord:123' },
      models: {
        fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-test-receipts' },
      },
      agents: { main: { model: 'fake' }, ops: { model: 'fake', tools: [] } },
      scheduler: { tickMs: 50, timezone: 'Europe/Berlin' },
      gateway: { drainTimeoutMs: 200 },
    },
    toolpackMessageRetry: { attempts: 3, retryDelayMs: 5, backoffFactor: 2 },
  });
  cleanups.push(() => gateway.dispose());
  const entry = async (id: string, input: Record<string, unknown> = {}) => {
    const answer = await gateway.request('POST', `/api/projects/default/tool-ui/receipts/${id}`, input);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.metadata;
  };
  const send = async (input: Record<string, unknown>): Promise<string> =>
    (await entry('receipts.send', input)).id;
  const status = async (id: string) => (await entry('receipts.status', { id })).status;
  return { gateway, script, requestsOf, entry, send, status };
}

describe('toolpack message receipts', () => {
  it('a route that refuses: pending while retried, then failed after the attempts, and so after a restart', async () => {
    const { gateway, send, status } = await setup();
    const events = await openEvents(gateway, 'local');
    const refused = await send({ channel: '#dead', body: 'nobody hears this' });
    const posted = await send({ channel: '#lobby', body: 'everyone hears this' });
    await expect.poll(() => status(refused)).toMatchObject({ state: 'failed' });
    expect(await status(refused)).toEqual({
      state: 'failed',
      attempts: 3,
      error: 'no channel adapter for discord',
    });
    await expect
      .poll(() => events.events.filter((event) => event.type === 'reply').map((event) => event.data.text))
      .toContain('receipts: everyone hears this');
    await expect.poll(() => status(posted)).toMatchObject({ state: 'delivered', attempts: 1 });
    const retried = gateway.logLines.filter((line) =>
      line.includes('toolpack message refused; retried later'),
    );
    expect(retried).toHaveLength(2);

    await gateway.restart();
    expect(await status(refused)).toEqual({
      state: 'failed',
      attempts: 3,
      error: 'no channel adapter for discord',
    });
    expect(await status(posted)).toEqual({
      state: 'delivered',
      attempts: 1,
      deliveredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(await status('msg_never_sent')).toBeNull();
  });

  it('a message to an agent: pending while its signal waits, delivered once the wake turn carrying it starts', async () => {
    const { gateway, script, requestsOf, entry, send, status } = await setup();
    const busy = gate();
    script(OPS, async () => {
      await busy.promise;
      return { text: 'first handled' };
    });
    const first = await send({ recipient: 'ops', body: 'first' });
    await expect.poll(() => requestsOf(OPS).length).toBe(1);
    // Its wake turn has started (the model was asked): delivered.
    await expect.poll(() => status(first)).toMatchObject({ state: 'delivered', attempts: 1 });

    // Ops is busy: the next message waits in the queue, pending.
    const second = await send({ recipient: 'ops', body: 'second' });
    await expect.poll(async () => (await entry('receipts.pending', { agentId: 'ops' })).pending).toBe(true);
    expect((await entry('receipts.pending', { agentId: 'main' })).pending).toBe(false);
    expect(await status(second)).toEqual({ state: 'pending', attempts: 1 });

    // Across a restart (the signal is stored, the receipt journaled): still pending, then delivered.
    busy.open(undefined);
    await gateway.restart();
    expect(await status(first)).toMatchObject({ state: 'delivered' });
    await expect
      .poll(() => requestsOf(OPS).some((request) => JSON.stringify(request.body).includes('second')), {
        timeout: 10_000,
      })
      .toBe(true);
    await expect.poll(() => status(second)).toMatchObject({ state: 'delivered', attempts: 1 });
    expect((await entry('receipts.pending', { agentId: 'ops' })).pending).toBe(false);
  });
});

describe('the store surface', () => {
  it('shows scheduler.timezone, refuses a bad id naming the field, and offers store.db (nothing reported as not provided)', async () => {
    const { gateway, entry } = await setup();
    expect((await entry('receipts.config')).config).toEqual({
      name: 'default',
      channels: ['#lobby', '#dead'],
      agents: [
        { id: 'main', displayName: 'main', tools: ['*'] },
        { id: 'ops', displayName: 'ops', tools: [] },
      ],
      tools: { toolpacks: ['core', { id: 'receipts' }] },
      communication: expect.objectContaining({ coordinatorAgent: 'main' }),
      scheduler: { timezone: 'Europe/Berlin' },
    });
    const bad = await gateway.request('POST', '/api/projects/default/tool-ui/receipts/receipts.pending', {
      agentId: '',
    });
    expect(bad.status).toBe(500);
    expect(bad.body.message).toContain('hasPendingSignalsForAgent: agentId must be a non-empty string');

    const report = await gateway.request('GET', '/api/toolpacks');
    expect(report.body.toolpacks.find((toolpack: any) => toolpack.id === 'receipts')).not.toHaveProperty(
      'notProvided',
    );
    expect((await entry('receipts.db')).db).toBe('object');
    expect(gateway.logLines.filter((line) => line.includes('"api":"store.db"'))).toEqual([]);
  });

  it('shows a scheduler hook whose store.db query names a table Switchboard does not keep as failing, naming it', async () => {
    const gateway = await startTestGateway({
      config: {
        tools: { toolpacks: [{ path: READS_DB, id: 'failing-tick' }] },
        agents: { main: {} },
        scheduler: { tickMs: 50 },
      },
    });
    cleanups.push(() => gateway.dispose());
    const report = async () => (await gateway.request('GET', '/api/toolpacks')).body;
    await expect
      .poll(async () =>
        (await report()).schedulerHooks.find((entry: any) => entry.toolpackId === 'failing-tick'),
      )
      .toMatchObject({
        status: 'failing',
        error: expect.stringContaining('Switchboard keeps no table "agent_history"'),
      });
    expect(
      (await report()).toolpacks.find((toolpack: any) => toolpack.id === 'failing-tick'),
    ).not.toHaveProperty('notProvided');
  });
});
