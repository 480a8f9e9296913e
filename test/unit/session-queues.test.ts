import { describe, expect, it } from 'vitest';
import {
  createRouterRig,
  THREAD_KEY as KEY,
  runtimeTurn,
  slackMessage,
  answered as texts,
} from '../fakes/router-rig.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * The router and its session queues in this process, on the memory store, with a runner that
 * holds each turn until the test releases it: who may interrupt whom, how collect batches are
 * cut, and when an agent counts as busy.
 */

const cleanups = cleanupAfterEach();

async function setup(session: Record<string, unknown>, owners: string[] = []) {
  const rig = await createRouterRig({ config: { owners, session } });
  cleanups.push(() => rig.close());
  return rig;
}

const inbound = (text: string, senderId = 'slack:U1') => slackMessage(text, { senderId });

describe('interrupt mode', () => {
  it("queues a runtime entry behind a user's turn; a user's message interrupts it", async () => {
    const { router, gated } = await setup({ queueMode: 'interrupt' });
    const first = router.dispatch(inbound('first question'));
    await gated.waitForOpen(1);
    const announced = await router.startTurn(runtimeTurn(KEY, 'a sub-agent finished'));
    expect(router.sessionDepth(KEY)).toBe(1);
    expect(gated.turns[0]?.signal.aborted).toBe(false);
    const second = router.dispatch(inbound('never mind'));
    await expect(first).resolves.toMatchObject({ status: 'killed' });
    expect(gated.turns[0]?.signal.aborted).toBe(true);
    await gated.waitForOpen(1);
    gated.releaseNext();
    await Promise.all([second, announced.done]);
    expect(gated.turns.slice(1).map(texts)).toEqual([['a sub-agent finished', 'never mind']]);
  });

  it("never lets a non-owner's message interrupt an owner's turn", async () => {
    const { router, gated } = await setup({ queueMode: 'interrupt' }, ['slack:OWNER']);
    const owner = router.dispatch(inbound('deploy please', 'slack:OWNER'));
    await gated.waitForOpen(1);
    const other = router.dispatch(inbound('stop that', 'slack:U2'));
    await expect.poll(() => router.sessionDepth(KEY)).toBe(1);
    expect(gated.turns[0]?.signal.aborted).toBe(false);
    gated.releaseNext();
    await owner;
    await gated.waitForOpen(1);
    gated.releaseNext();
    await other;
    expect(gated.turns.map((turn) => [texts(turn), turn.isOwner])).toEqual([
      [['deploy please'], true],
      [['stop that'], false],
    ]);
  });
});

describe('collect batches', () => {
  it("answer an owner's messages in an owner turn, never mixed with others' messages", async () => {
    const { router, gated } = await setup({ queueMode: 'collect' }, ['slack:OWNER']);
    const replies = [router.dispatch(inbound('warm up', 'slack:U2'))];
    await gated.waitForOpen(1);
    replies.push(
      router.dispatch(inbound('owner one', 'slack:OWNER')),
      router.dispatch(inbound('owner two', 'slack:OWNER')),
      router.dispatch(inbound('from a guest', 'slack:U2')),
    );
    await expect.poll(() => router.sessionDepth(KEY)).toBe(3);
    gated.releaseNext();
    await replies[0];
    await gated.waitForOpen(1);
    gated.releaseNext();
    await replies[1];
    expect(gated.turns[1]?.isOwner).toBe(true);
    await gated.waitForOpen(1);
    gated.releaseNext();
    await Promise.all(replies);
    expect(gated.turns.map((turn) => [texts(turn), turn.isOwner])).toEqual([
      [['warm up'], false],
      [['owner one', 'owner two'], true],
      [['from a guest'], false],
    ]);
  });
});

describe('runtime entries charged to someone', () => {
  it('are answered in one turn per payer, which carries who pays', async () => {
    const { router, gated } = await setup({ queueMode: 'collect' });
    const first = router.dispatch(inbound('warm up'));
    await gated.waitForOpen(1);
    const charged = (text: string, chargedTo?: string) =>
      router.startTurn({ ...runtimeTurn(KEY, text), ...(chargedTo ? { chargedTo } : {}) });
    const started = [
      await charged('bob one', 'slack:UBOB'),
      await charged('bob two', 'slack:UBOB'),
      await charged('carol', 'slack:UCAROL'),
      await charged('nobody'),
    ];
    await expect.poll(() => router.sessionDepth(KEY)).toBe(4);
    gated.releaseNext();
    await first;
    for (let turn = 0; turn < 3; turn += 1) {
      await gated.waitForOpen(1);
      gated.releaseNext();
    }
    await Promise.all(started.map((entry) => entry.done));
    expect(gated.turns.slice(1).map((turn) => [texts(turn), turn.chargedTo])).toEqual([
      [['bob one', 'bob two'], 'slack:UBOB'],
      [['carol'], 'slack:UCAROL'],
      [['nobody'], undefined],
    ]);
  });
});

describe('agent busy', () => {
  it('is true while any session of the agent has a turn, not only its main session', async () => {
    const { router, gated } = await setup({});
    expect(router.agentBusy('main')).toBe(false);
    const chat = router.dispatch(inbound('long job'));
    await gated.waitForOpen(1);
    expect(router.agentBusy('main')).toBe(true);
    expect(router.agentBusy('ops')).toBe(false);
    gated.releaseNext();
    await chat;
    await expect.poll(() => router.agentBusy('main')).toBe(false);
  });
});
