import { describe, expect, it } from 'vitest';
import { gate, startSessionScriptedModel } from '../fakes/subagent-script.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { SCHEDULER_DIR } from '../helpers/scheduler-host.js';
import { cleanupAfterEach } from '../helpers/teardown.js';
import { openEvents } from '../helpers/webchat-events.js';

/**
 * The packaged scheduler in a running gateway, through the real Tools API: its jobs count a send
 * only when the gateway's receipt (`store.messageStatus`) says delivered; a route that refuses
 * makes the job `failed` after the retries; a recurring job to a busy agent is not sent again
 * while its message waits (the firings are `skipped`); the config's `scheduler.timezone` is the
 * default zone; a job keeps its next time across a restart.
 */

const OPS = 'agent:ops:main';
/** A moment from now, as the WebUI form's `at` takes it (the form has no sub-minute delays). */
const soon = () => new Date(Date.now() + 50).toISOString();
const cleanups = cleanupAfterEach();

async function setup() {
  const { model, script, requestsOf } = await startSessionScriptedModel(cleanups);
  const gateway: TestGateway = await startTestGateway({
    config: {
      tools: { toolpacks: [{ path: SCHEDULER_DIR, id: 'scheduler' }] },
      // #dead names a Discord channel, and no Discord adapter runs: every post there is refused.
      routes: { '#lobby': 'webchat:local', '#dead': 'discord:123' },
      models: {
        fake: {
          provider: 'openai',
          model: 'fake-1',
          baseUrl: model.url,
          apiKey: 'sk-test-scheduler-delivery',
        },
      },
      agents: { main: { model: 'fake' }, ops: { model: 'fake', tools: [] } },
      scheduler: { tickMs: 50, timezone: 'Europe/Berlin' },
      gateway: { drainTimeoutMs: 200 },
    },
    toolpackMessageRetry: { attempts: 3, retryDelayMs: 5, backoffFactor: 2 },
  });
  cleanups.push(() => gateway.dispose());
  const entry = async (id: string, input: Record<string, unknown> = {}) => {
    const answer = await gateway.request('POST', `/api/projects/default/tool-ui/scheduler/${id}`, input);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  };
  const jobs = async () => (await entry('schedule.jobs', { includeInactive: true })).metadata.jobs as any[];
  const job = async (id: string) => (await jobs()).find((candidate) => candidate.id === id);
  return { gateway, script, requestsOf, entry, jobs, job };
}

describe('the scheduler with delivery receipts in a gateway', () => {
  it('a post to a refusing route: the job is failed after the retries; one to a working route is done', async () => {
    const { gateway, entry, job } = await setup();
    const events = await openEvents(gateway, 'local');
    const dead = (await entry('schedule.once', { channel: '#dead', at: soon(), body: 'nobody hears this' }))
      .metadata.job.id;
    const lobby = (
      await entry('schedule.once', { channel: '#lobby', at: soon(), body: 'everyone hears this' })
    ).metadata.job.id;
    await expect.poll(async () => (await job(dead))?.status, { timeout: 10_000 }).toBe('failed');
    expect(await job(dead)).toMatchObject({
      status: 'failed',
      sentCount: 0,
      lastError: 'no channel adapter for discord',
      runs: [{ state: 'failed', attempts: 3, error: 'no channel adapter for discord' }],
    });
    await expect
      .poll(() => events.events.filter((event) => event.type === 'reply').map((event) => event.data.text))
      .toContain('scheduler: everyone hears this');
    await expect.poll(async () => (await job(lobby))?.status, { timeout: 10_000 }).toBe('done');
    expect(await job(lobby)).toMatchObject({ sentCount: 1, runs: [{ state: 'delivered', attempts: 1 }] });

    const panel = await entry('schedule.jobs', { includeInactive: true });
    expect(panel.output).toContain(`- ${dead} [failed/once]`);
    expect(panel.output).toContain('error: no channel adapter for discord');
    expect(panel.metadata.metrics).toContainEqual({ label: 'Failed', value: 1 });
  });

  it('a recurring job to a busy agent is not sent again while its message waits: the firings are skipped', async () => {
    const { entry, script, requestsOf, job } = await setup();
    const busy = gate();
    script(OPS, async () => {
      await busy.promise;
      return { text: 'handled' };
    });
    const id = (
      await entry('schedule.recurring', { cron: '* * * * * *', recipient: 'ops', body: 'sync now' })
    ).metadata.job.id;
    // The first message's wake turn starts (delivered) and hangs; the second waits in the queue.
    await expect
      .poll(async () => (await job(id))?.runs?.map((run: any) => run.state), { timeout: 10_000 })
      .toEqual(expect.arrayContaining(['delivered', 'pending', 'skipped']));
    const waiting = await job(id);
    expect(waiting.runs.filter((run: any) => run.state !== 'skipped')).toHaveLength(2);
    expect(waiting.sentCount).toBe(1);
    await entry('schedule.cancel', { id });
    busy.open(undefined);
    await expect.poll(async () => (await job(id))?.sentCount, { timeout: 10_000 }).toBe(2);
    // Cancelled after the sends, the job still learns their outcome; the skipped firings sent nothing.
    const runs = (await job(id)).runs;
    expect(runs.filter((run: any) => run.messageId !== undefined).map((run: any) => run.state)).toEqual([
      'delivered',
      'delivered',
    ]);
    expect(requestsOf(OPS).length).toBeGreaterThanOrEqual(2);
  });

  it('takes scheduler.timezone from the config and keeps a job next time across a restart', async () => {
    const { gateway, entry, job } = await setup();
    const created = await entry('schedule.recurring', {
      cron: '0 9 * * 1-5',
      channel: '#lobby',
      body: 'stand-up',
    });
    expect(created.output).toContain('Time zone: Europe/Berlin (the default, from scheduler.timezone)');
    const { id, nextAt } = created.metadata.job;
    expect(created.metadata.job.schedule).toEqual({
      mode: 'cron',
      cron: '0 9 * * 1-5',
      timezone: 'Europe/Berlin',
    });
    await gateway.restart();
    expect(await job(id)).toMatchObject({ status: 'active', nextAt, sentCount: 0 });
  });
});
