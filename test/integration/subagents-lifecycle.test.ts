import { describe, expect, it } from 'vitest';
import { childRequests, gate, sessionOf, userTexts } from '../fakes/subagent-script.js';
import { childAsked, PARENT, setup, spawn } from './subagents-harness.js';

/**
 * Sub-agents across an in-process restart: runs left running are ended `interrupted`, runs left
 * waiting for a slot run after it (with the steers they were sent), and announcements (also those
 * pending or unanswered when the gateway stopped) are answered exactly once.
 */

const RESTART_TIMEOUT = { timeout: 15_000 };

describe('sub-agents across a restart', () => {
  it('a running child is interrupted by the restart; a waiting one runs after it, with the steer it was sent', async () => {
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
    expect(
      await useTool('subagents', { action: 'steer', target: 'waiter', message: 'Also count the tests.' }),
    ).toMatchObject({ status: 'ok', mode: 'injected', runId: waiting.runId });

    await gateway.restart();
    await request.disconnected;
    // The waiting child never ran before the restart; after it, it runs on its task and the steer.
    const waiterRequest = await childAsked(model, 'waiting job');
    expect(userTexts(waiterRequest)).toEqual(['waiting job\n\nAlso count the tests.']);
    await expect.poll(announcements, RESTART_TIMEOUT).toHaveLength(2);
    const byRun = Object.fromEntries((await announcements()).map((item) => [item.runId, item]));
    expect(byRun[running.runId]).toMatchObject({ status: 'interrupted', label: 'endless' });
    expect(byRun[waiting.runId]).toMatchObject({
      status: 'success',
      label: 'waiter',
      result: 'done: waiting job\n\nAlso count the tests.',
    });

    const list = await gateway.request('GET', `/api/sessions/${encodeURIComponent(PARENT)}/subagents`);
    expect(list.body.active).toEqual([]);
    expect(list.body.recent.map((entry: any) => [entry.label, entry.status]).sort()).toEqual([
      ['endless', 'interrupted'],
      ['waiter', 'done'],
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
    expect(childRequests(model.received, 'waiting job')).toHaveLength(1);
  });

  it('an announcement queued behind a busy parent turn when the restart comes is answered after it, once', async () => {
    const { gateway, model, script, useTool, announcements, transcript } = await setup();
    script.child('quick job', { text: 'quick result' });
    // The parent spawns, then its turn hangs: the announcement waits behind it.
    script.parent({ toolCalls: [spawn('quick job', 'quick')] }, { hang: true });
    const busy = gateway.send('spawn and keep busy').catch(() => undefined);
    // The announcement waits in the parent's queue (it reaches the transcript when its turn takes it).
    await expect
      .poll(async () => (await gateway.send('/status')).body.replies[0].text, RESTART_TIMEOUT)
      .toContain('queue: 1 waiting');
    await expect.poll(() => model.received.filter((request) => sessionOf(request) === PARENT).length).toBe(2);
    const hanging = model.received.filter((request) => sessionOf(request) === PARENT)[1];
    expect((await transcript(PARENT)).some((entry) => entry.text.startsWith('Heard: '))).toBe(false);

    // The stop aborts the hanging turn and drops the queued announcement turn unanswered.
    await gateway.restart();
    await hanging?.disconnected;
    await busy;
    const heard = async () =>
      (await transcript(PARENT)).filter((entry) => entry.text.startsWith('Heard: quick ended success'));
    await expect.poll(async () => (await heard()).length, RESTART_TIMEOUT).toBe(1);
    // Delivered once: the entry is not appended again, and nothing more after another restart.
    expect(await announcements()).toHaveLength(1);
    await useTool('subagents', { action: 'list' });
    await gateway.restart();
    await useTool('subagents', { action: 'list' });
    expect(await heard()).toHaveLength(1);
    expect(await announcements()).toHaveLength(1);
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
