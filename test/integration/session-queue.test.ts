import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KEPT_FOR_RESTART } from '../../src/engine/routing/index.js';
import { createGatedRunner } from '../fakes/gated-runner.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

const FIXTURES = path.join(import.meta.dirname, '../fixtures/controller-toolpacks');

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
    // Both wait (kept in the inbox) while the first turn still runs.
    await expect
      .poll(async () => (await gateway.send('/status')).body.replies[0].text)
      .toContain('Turn: running; queue: 2 waiting');
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
  it('lets a running turn finish, and keeps a message sent meanwhile for the next start', async () => {
    const { gated, gateway } = await start({ gateway: { drainTimeoutMs: 20_000 } });
    const running = gateway.send('finish me');
    await gated.waitForOpen(1);
    const restarted = gateway.restart();
    await expect
      .poll(() => gateway.logLines.some((line) => line.includes('"draining: new messages are kept')))
      .toBe(true);
    const late = await gateway.send('too late', 'late');
    expect(late.status).toBe(200);
    expect(late.body.replies.map((reply: { text: string }) => reply.text)).toEqual([KEPT_FOR_RESTART]);
    gated.releaseNext();
    expect((await running).body.replies[0].text).toBe('answered: finish me');
    await restarted;
    await gated.waitForOpen(1);
    expect(gated.turns.at(-1)?.messages.map((entry) => entry.text)).toEqual(['too late']);
    gated.releaseNext();
  });

  it('aborts a turn that outlives the stop timeout; its message waits for the next start', async () => {
    const { gated, gateway } = await start({ gateway: { drainTimeoutMs: 50 } });
    const running = gateway.send('never ends');
    await gated.waitForOpen(1);
    await gateway.stop();
    expect(gated.turns[0]?.signal.aborted).toBe(true);
    expect((await running).body.replies.map((reply: { text: string }) => reply.text)).toEqual([
      KEPT_FOR_RESTART,
    ]);
  });
});

describe('an agent is busy', () => {
  it('in the scheduler tick while any of its sessions runs a turn, not only its main session', async () => {
    const gated = createGatedRunner();
    gateway = await startTestGateway({
      config: {
        scheduler: { tickMs: 50 },
        tools: { toolpacks: [{ path: path.join(FIXTURES, 'busy-probe'), id: 'busy-probe' }] },
      },
      createRunner: () => gated.runner,
    });
    const probe = path.join(gateway.dir, 'data', 'busy-probe.jsonl');
    const ticks = async () =>
      (await readFile(probe, 'utf8').catch(() => ''))
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line).find((agent: { id: string }) => agent.id === 'main'));
    await expect.poll(async () => (await ticks()).length).toBeGreaterThan(0);
    expect((await ticks()).at(-1)).toEqual({ id: 'main', status: 'idle', modelAlive: false });
    const chat = gateway.send('a long job in a chat session');
    await gated.waitForOpen(1);
    // Two ticks more: at least one ran entirely while the chat turn was open.
    const seen = (await ticks()).length;
    await expect.poll(async () => (await ticks()).length).toBeGreaterThan(seen + 1);
    expect((await ticks()).at(-1)).toEqual({ id: 'main', status: 'running', modelAlive: true });
    gated.releaseNext();
    await chat;
  });
});
