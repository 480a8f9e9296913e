import { afterEach, describe, expect, it } from 'vitest';
import { createGatedRunner } from '../fakes/gated-runner.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

let gateway: TestGateway | undefined;

afterEach(async () => {
  await gateway?.dispose();
  gateway = undefined;
});

async function start(config: Record<string, unknown>) {
  const gated = createGatedRunner();
  gateway = await startTestGateway({ config, createRunner: () => gated.runner });
  return { gated, gateway };
}

async function statusOf(target: TestGateway, key: string): Promise<string | undefined> {
  const listed = await target.request('GET', '/api/sessions');
  return listed.body.sessions.find((session: { key: string }) => session.key === key)?.status;
}

describe('per-session queues', () => {
  it('collect: messages sent during a turn are answered together by the next turn', async () => {
    const { gated, gateway } = await start({ session: { queueMode: 'collect' } });
    const first = gateway.send('one');
    await gated.waitForOpen(1);
    const second = gateway.send('two');
    const third = gateway.send('three');
    // Both are in the transcript (acknowledged) while the first turn still runs.
    await expect
      .poll(
        async () =>
          (await gateway.request('GET', '/api/sessions/agent:main:webchat:direct:local/transcript')).body
            .entries.length,
      )
      .toBe(3);
    expect((await gateway.send('/status')).body.replies[0].text).toContain('Turn: running; queue: 2 waiting');
    gated.releaseNext();
    expect((await first).body.replies[0].text).toBe('answered: one');
    await gated.waitForOpen(1);
    gated.releaseNext();
    expect((await second).body.replies[0].text).toBe('answered: two + three');
    expect((await third).body.replies[0].text).toBe('answered: two + three');
    expect(gated.turns.map((turn) => turn.messages.length)).toEqual([1, 2]);
  });

  it('followup: every queued message gets its own turn, in order', async () => {
    const { gated, gateway } = await start({ session: { queueMode: 'followup' } });
    const replies = [gateway.send('a')];
    await gated.waitForOpen(1);
    replies.push(gateway.send('b'), gateway.send('c'));
    for (let turn = 0; turn < 3; turn += 1) {
      await gated.waitForOpen(1);
      gated.releaseNext();
    }
    const texts = (await Promise.all(replies)).map((reply) => reply.body.replies[0].text);
    expect(texts).toEqual(['answered: a', 'answered: b', 'answered: c']);
  });

  it('runs sessions side by side up to the global limit, and shows the waiting one as queued', async () => {
    const { gated, gateway } = await start({ session: { maxConcurrentTurns: 1 } });
    const alice = gateway.send('from alice', 'alice');
    await gated.waitForOpen(1);
    const bob = gateway.send('from bob', 'bob');
    await expect.poll(() => statusOf(gateway, 'agent:main:webchat:direct:bob')).toBe('queued');
    expect(await statusOf(gateway, 'agent:main:webchat:direct:alice')).toBe('running');
    gated.releaseNext();
    await alice;
    await gated.waitForOpen(1);
    gated.releaseNext();
    expect((await bob).body.replies[0].text).toBe('answered: from bob');
    expect(gated.maxRunning).toBe(1);
  });

  it('/stop aborts the running turn; without one it says so', async () => {
    const { gated, gateway } = await start({});
    expect((await gateway.send('/stop')).body.replies[0].text).toBe('No turn is running in this session.');
    const long = gateway.send('long job');
    await gated.waitForOpen(1);
    expect((await gateway.send('/stop')).body.replies[0].text).toBe('Stopped the running turn.');
    expect((await long).body.replies).toEqual([]);
    expect(gated.turns[0]?.signal.aborted).toBe(true);
  });

  it('marks a turn as an owner turn only when its messages came from owners', async () => {
    const { gated, gateway } = await start({ owners: ['webchat:local'] });
    const owner = gateway.send('from the owner');
    await gated.waitForOpen(1);
    gated.releaseNext();
    await owner;
    const other = gateway.send('from someone else', 'mallory');
    await gated.waitForOpen(1);
    gated.releaseNext();
    await other;
    expect(gated.turns.map((turn) => [turn.senderId, turn.isOwner])).toEqual([
      ['webchat:local', true],
      ['webchat:mallory', false],
    ]);
  });
});

describe('stopping with turns in flight', () => {
  it('lets a running turn finish, and refuses new messages meanwhile', async () => {
    const { gated, gateway } = await start({ gateway: { drainTimeoutMs: 20_000 } });
    const running = gateway.send('finish me');
    await gated.waitForOpen(1);
    const stopped = gateway.stop();
    await expect.poll(async () => (await gateway.send('too late', 'late')).status).toBe(503);
    gated.releaseNext();
    expect((await running).body.replies[0].text).toBe('answered: finish me');
    await stopped;
  });

  it('aborts a turn that outlives the stop timeout', async () => {
    const { gated, gateway } = await start({ gateway: { drainTimeoutMs: 50 } });
    const running = gateway.send('never ends');
    await gated.waitForOpen(1);
    await gateway.stop();
    expect(gated.turns[0]?.signal.aborted).toBe(true);
    expect((await running).body.replies).toEqual([]);
  });
});
