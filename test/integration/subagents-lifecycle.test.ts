import { describe, expect, it } from 'vitest';
import { childRequests, gate } from '../fakes/subagent-script.js';
import { childAsked, PARENT, setup, spawn } from './subagents-harness.js';

/**
 * Sub-agents across an in-process restart: runs left running or waiting are ended `interrupted`,
 * and announcements (also those pending when the gateway stopped) arrive exactly once.
 */

const RESTART_TIMEOUT = { timeout: 15_000 };

describe('sub-agents across a restart', () => {
  it('a running and a waiting child are interrupted by the restart, listed so and announced once each', async () => {
    const { gateway, model, script, useTool, useTools, announcements, transcript } = await setup({
      config: { subagents: { maxConcurrent: 1 } },
    });
    script.child('endless job', { hang: true });
    const [running, waiting] = await useTools([
      spawn('endless job', 'endless'),
      spawn('waiting job', 'waiter'),
    ]);
    const request = await childAsked(model, 'endless job');
    expect((await useTool('subagents', {})).active.map((entry: any) => entry.status)).toEqual([
      'queued',
      'running',
    ]);

    await gateway.restart();
    await request.disconnected;
    await expect.poll(announcements, RESTART_TIMEOUT).toHaveLength(2);
    const byRun = Object.fromEntries((await announcements()).map((item) => [item.runId, item]));
    expect(byRun[running.runId]).toMatchObject({ status: 'interrupted', label: 'endless' });
    expect(byRun[waiting.runId]).toMatchObject({ status: 'interrupted', label: 'waiter', result: '' });
    // The waiting child never ran, before the restart or after it.
    expect(childRequests(model.received, 'waiting job')).toHaveLength(0);

    const list = await gateway.request('GET', `/api/sessions/${encodeURIComponent(PARENT)}/subagents`);
    expect(list.body.active).toEqual([]);
    expect(list.body.recent.map((entry: any) => [entry.label, entry.status]).sort()).toEqual([
      ['endless', 'interrupted'],
      ['waiter', 'interrupted'],
    ]);
    // The parent answered both announcements after the restart.
    await expect
      .poll(async () => (await transcript(PARENT)).filter((entry) => entry.text.startsWith('Heard: ')).length)
      .toBe(2);

    // Nothing is announced again: not after another round trip, not after another restart.
    await useTool('subagents', { action: 'list' });
    await gateway.restart();
    await useTool('subagents', { action: 'list' });
    expect(await announcements()).toHaveLength(2);
  });

  // The child ends while the gateway stops: its end is recorded before the store closes, and its
  // announcement (which cannot start a turn while the router is closed) stays pending until after the restart.
  it('an announcement pending at the restart is delivered after it, exactly once', async () => {
    const { gateway, model, script, useTool, useTools, announcements } = await setup({
      config: { gateway: { drainTimeoutMs: 5000 } },
    });
    const held = gate();
    script.child('finish while stopping', async () => {
      await held.promise;
      return { text: 'finished during the stop' };
    });
    const [child] = await useTools([spawn('finish while stopping', 'late')]);
    await childAsked(model, 'finish while stopping');

    // The stop waits for the child's turn; it ends while the router takes no new turns, so its
    // announcement cannot start a turn in the parent now and stays pending.
    const restarted = gateway.restart();
    await expect.poll(() => gateway.logLines.some((line) => line.includes('"msg":"restarting"'))).toBe(true);
    held.open();
    await restarted;
    expect(gateway.logLines.some((line) => line.includes('it stays pending'))).toBe(true);

    await expect.poll(announcements, RESTART_TIMEOUT).toHaveLength(1);
    expect((await announcements())[0]).toMatchObject({
      status: 'success',
      label: 'late',
      runId: child.runId,
      result: 'finished during the stop',
    });
    await useTool('subagents', { action: 'list' });
    await gateway.restart();
    await useTool('subagents', { action: 'list' });
    expect(await announcements()).toHaveLength(1);
    expect((await useTool('subagents', {})).recent).toMatchObject([{ label: 'late', status: 'done' }]);
  });
});
