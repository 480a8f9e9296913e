import { describe, expect, it } from 'vitest';
import { KEPT_FOR_RESTART } from '../../src/engine/routing/index.js';
import {
  answered,
  createRouterRig,
  type RouterRig,
  runtimeTurn,
  slackMessage,
  THREAD_KEY,
} from '../fakes/router-rig.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * Every queue mode of the session queues, the global limit on concurrent turns and the drain,
 * through the router in this process (memory store, gated runner): which turn answers which
 * message, and what the transcript and the inbox hold afterwards.
 */

const cleanups = cleanupAfterEach();

async function rig(config: Record<string, unknown>, store?: RouterRig['store']): Promise<RouterRig> {
  const created = await createRouterRig({ config, ...(store ? { store } : {}) });
  cleanups.push(() => created.close());
  return created;
}

const transcriptTexts = async (target: RouterRig) =>
  (await target.sessions.transcript(THREAD_KEY)).map((entry) => `${entry.role}: ${entry.text}`);

describe('collect', () => {
  it('answers the messages that arrived during a turn together, in the next turn', async () => {
    const { send, gated } = await rig({ session: { queueMode: 'collect' } });
    const first = send(slackMessage('one'));
    await gated.waitForOpen(1);
    const second = send(slackMessage('two'));
    const third = send(slackMessage('three'));
    await Promise.all([second.accepted, third.accepted]);
    gated.releaseNext();
    await first.done;
    await gated.waitForOpen(1);
    gated.releaseNext();
    const [two, three] = await Promise.all([second.done, third.done]);
    expect(gated.turns.map(answered)).toEqual([['one'], ['two', 'three']]);
    expect(two).toEqual(three);
    expect(two.replies.map((reply) => reply.text)).toEqual(['answered: two + three']);
  });
});

describe('followup', () => {
  it('answers each waiting message in a turn of its own, in arrival order', async () => {
    const target = await rig({ session: { queueMode: 'followup' } });
    const { send, gated } = target;
    const sent = [send(slackMessage('one'))];
    await gated.waitForOpen(1);
    sent.push(send(slackMessage('two')), send(slackMessage('three')));
    await Promise.all(sent.map((message) => message.accepted));
    expect(target.router.sessionDepth(THREAD_KEY)).toBe(2);
    for (const message of sent) {
      await gated.waitForOpen(1);
      gated.releaseNext();
      await message.done;
    }
    expect(gated.turns.map(answered)).toEqual([['one'], ['two'], ['three']]);
    expect(await transcriptTexts(target)).toEqual([
      'user: one',
      'assistant: answered: one',
      'user: two',
      'assistant: answered: two',
      'user: three',
      'assistant: answered: three',
    ]);
  });
});

describe('steer', () => {
  it('hands a message to the running turn, written after what the turn recorded so far', async () => {
    const target = await rig({ session: { queueMode: 'steer' } });
    const { send, gated } = target;
    const first = send(slackMessage('one'));
    await gated.waitForOpen(1);
    await target.sessions.append(THREAD_KEY, { role: 'assistant', text: 'working on it' });
    const steered = send(slackMessage('also this'));
    await steered.accepted;
    expect(target.router.sessionDepth(THREAD_KEY)).toBe(1);
    const taken = await gated.turns[0]?.takeSteered();
    expect(taken?.map((entry) => entry.text)).toEqual(['also this']);
    expect(await gated.turns[0]?.takeSteered()).toEqual([]);
    gated.releaseNext();
    const [one, also] = await Promise.all([first.done, steered.done]);
    expect(also).toEqual(one);
    expect(gated.turns).toHaveLength(1);
    expect(await transcriptTexts(target)).toEqual([
      'user: one',
      'assistant: working on it',
      'user: also this',
      'assistant: answered: one',
    ]);
  });

  it('gives a steered message the turn did not take a turn of its own', async () => {
    const { send, gated } = await rig({ session: { queueMode: 'steer' } });
    const first = send(slackMessage('one'));
    await gated.waitForOpen(1);
    const late = send(slackMessage('too late'));
    await late.accepted;
    gated.releaseNext();
    await first.done;
    await gated.waitForOpen(1);
    gated.releaseNext();
    await late.done;
    expect(gated.turns.map(answered)).toEqual([['one'], ['too late']]);
  });

  it("never steers a non-owner's message into an owner's turn", async () => {
    const target = await rig({ session: { queueMode: 'steer' }, owners: ['slack:OWNER'] });
    const { send, gated } = target;
    const owner = send(slackMessage('deploy', { senderId: 'slack:OWNER' }));
    await gated.waitForOpen(1);
    const guest = send(slackMessage('me too', { senderId: 'slack:U2' }));
    await guest.accepted;
    expect(await gated.turns[0]?.takeSteered()).toEqual([]);
    gated.releaseNext();
    await owner.done;
    await gated.waitForOpen(1);
    gated.releaseNext();
    await guest.done;
    expect(gated.turns.map((turn) => [answered(turn), turn.isOwner])).toEqual([
      [['deploy'], true],
      [['me too'], false],
    ]);
  });
});

describe('interrupt', () => {
  it("aborts the running turn for a user's message and answers it in a new turn", async () => {
    const target = await rig({ session: { queueMode: 'interrupt' } });
    const { send, gated } = target;
    const first = send(slackMessage('first question'));
    await gated.waitForOpen(1);
    const second = send(slackMessage('never mind'));
    await expect(first.done).resolves.toMatchObject({ status: 'killed', replies: [] });
    expect(gated.turns[0]?.signal.aborted).toBe(true);
    await gated.waitForOpen(1);
    gated.releaseNext();
    await expect(second.done).resolves.toMatchObject({ status: 'done' });
    expect(gated.turns.map(answered)).toEqual([['first question'], ['never mind']]);
    expect(await transcriptTexts(target)).toEqual([
      'user: first question',
      'user: never mind',
      'assistant: answered: never mind',
    ]);
  });

  it('lets a runtime entry wait behind the running turn instead', async () => {
    const { router, send, gated } = await rig({ session: { queueMode: 'interrupt' } });
    const first = send(slackMessage('question'));
    await gated.waitForOpen(1);
    const signal = await router.startTurn(runtimeTurn(THREAD_KEY, 'a signal arrived'));
    expect(gated.turns[0]?.signal.aborted).toBe(false);
    gated.releaseNext();
    await first.done;
    await gated.waitForOpen(1);
    gated.releaseNext();
    await signal.done;
    expect(gated.turns.map(answered)).toEqual([['question'], ['a signal arrived']]);
  });
});

describe('the global limit on concurrent turns', () => {
  it('runs sessions side by side up to the limit; the next one waits as queued', async () => {
    const { router, send, gated } = await rig({ session: { maxConcurrentTurns: 2 } });
    const chats = ['C1', 'C2', 'C3'].map((chatId) => send(slackMessage(`hi from ${chatId}`, { chatId })));
    await gated.waitForOpen(2);
    await chats[2]?.accepted;
    const third = 'agent:main:slack:channel:C3:thread:1.1';
    expect(router.sessionStatus(third)).toBe('queued');
    expect(router.sessionStatus(THREAD_KEY)).toBe('running');
    expect(gated.running).toBe(2);
    gated.releaseNext();
    await chats[0]?.done;
    await gated.waitForOpen(2);
    expect(router.sessionStatus(third)).toBe('running');
    gated.releaseNext();
    gated.releaseNext();
    await Promise.all(chats.map((chat) => chat.done));
    expect(gated.maxRunning).toBe(2);
    await expect.poll(() => router.sessionStatus(third)).toBe('idle');
  });
});

describe('a turn waiting for a human', () => {
  it('gives its slot back while it waits, and takes the next free one before turns waiting to start', async () => {
    const { router, send, gated } = await rig({ session: { maxConcurrentTurns: 1 } });
    const waiting = send(slackMessage('needs an approval', { chatId: 'C1' }));
    await gated.waitForOpen(1);
    // The turn's tool call now waits for an approver: its slot serves the next session.
    const takeSlot = gated.turns[0]?.yieldSlot?.();
    expect(takeSlot).toBeTypeOf('function');
    const second = send(slackMessage('another user', { chatId: 'C2' }));
    await gated.waitForOpen(2);
    const third = send(slackMessage('a third user', { chatId: 'C3' }));
    await third.accepted;
    const thirdKey = 'agent:main:slack:channel:C3:thread:1.1';
    // The decision came: the waiting turn asks for a slot while C2's turn holds the only one.
    let resumed = false;
    const back = takeSlot?.().then(() => {
      resumed = true;
    });
    // Past the microtasks and one macrotask: a slot that was given would have been taken by now.
    await new Promise((resolve) => setImmediate(resolve));
    expect(resumed).toBe(false);
    gated.releaseTurn(1);
    await second.done;
    await back;
    // The resumed turn went before C3, which still waits for a slot.
    expect(router.sessionStatus(thirdKey)).toBe('queued');
    expect(gated.turns).toHaveLength(2);
    gated.releaseTurn(0);
    await gated.waitForOpen(1);
    gated.releaseTurn(2);
    await Promise.all([waiting.done, second.done, third.done]);
    expect(gated.turns.map(answered)).toEqual([['needs an approval'], ['another user'], ['a third user']]);
  });
});

describe('the drain', () => {
  it('lets a running turn end, keeps a message sent meanwhile and answers it after the restart', async () => {
    const before = await rig({});
    const first = before.send(slackMessage('one'));
    await before.gated.waitForOpen(1);
    const closed = before.router.close(60_000);
    const late = before.send(slackMessage('during the stop'));
    await expect(late.done).resolves.toEqual({
      sessionKey: THREAD_KEY,
      replies: [expect.objectContaining({ text: KEPT_FOR_RESTART })],
      status: 'interrupted',
    });
    await expect(before.router.startTurn(runtimeTurn(THREAD_KEY, 'a signal'))).rejects.toMatchObject({
      code: 'GATEWAY_STATE',
    });
    before.gated.releaseNext();
    await closed;
    await expect(first.done).resolves.toMatchObject({ status: 'done' });
    expect((await before.inbox.list()).map((item) => item.entry.text)).toEqual(['during the stop']);

    const after = await rig({}, before.store);
    expect(await after.router.resume()).toBe(1);
    await after.gated.waitForOpen(1);
    after.gated.releaseNext();
    await expect.poll(async () => (await after.inbox.list()).length).toBe(0);
    expect(after.gated.turns.map(answered)).toEqual([['during the stop']]);
  });

  it('aborts a turn that outlives the stop timeout; its message, written once, is answered after the restart', async () => {
    const before = await rig({});
    const first = before.send(slackMessage('slow one'));
    await before.gated.waitForOpen(1);
    await before.router.close(20);
    const result = await first.done;
    expect(result.replies.map((reply) => reply.text)).toEqual([KEPT_FOR_RESTART]);
    expect(before.gated.turns[0]?.signal.reason).toMatchObject({ status: 'interrupted' });
    // The turn began (its entry is in the transcript): the next start counts that attempt.
    expect(await before.inbox.list()).toMatchObject([{ attempts: 0, entry: { text: 'slow one' } }]);

    const after = await rig({}, before.store);
    expect(await after.router.resume()).toBe(1);
    await after.gated.waitForOpen(1);
    expect(await after.inbox.list()).toMatchObject([{ attempts: 1, entry: { text: 'slow one' } }]);
    after.gated.releaseNext();
    await expect.poll(async () => (await after.inbox.list()).length).toBe(0);
    expect(after.gated.turns.map(answered)).toEqual([['slow one']]);
    expect(await transcriptTexts(after)).toEqual(['user: slow one', 'assistant: answered: slow one']);
  });
});
