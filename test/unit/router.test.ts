import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import { createStore, type Store } from '../../src/records/store/index.js';
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
 * The router in this process (memory store, gated runner): which agent and session a message
 * reaches, commands answered without a turn, the inbox that keeps a message until its turn ends,
 * redelivered messages taken once, and what a busy session shows.
 */

const cleanups = cleanupAfterEach();

async function rig(config: Record<string, unknown> = {}): Promise<RouterRig> {
  const created = await createRouterRig({ config });
  cleanups.push(() => created.close());
  return created;
}

describe('bindings', () => {
  it('send a message to the agent its most specific binding names, else the default agent', async () => {
    const { send, gated } = await rig({
      bindings: [
        { agent: 'ops', match: { channel: 'slack', chatId: 'C9' } },
        { agent: 'main', match: { channel: 'slack' } },
      ],
      defaultAgent: 'ops',
    });
    const bound = send(slackMessage('incident', { chatId: 'C9' }));
    const general = send(slackMessage('hello'));
    const discord = send(slackMessage('hi', { channel: 'discord', chatId: 'D1', threadId: undefined }));
    await gated.waitForOpen(3);
    expect(gated.turns.map((turn) => [turn.agentId, turn.sessionKey]).sort()).toEqual([
      ['main', THREAD_KEY],
      ['ops', 'agent:ops:discord:channel:D1'],
      ['ops', 'agent:ops:slack:channel:C9:thread:1.1'],
    ]);
    for (let open = 3; open > 0; open -= 1) gated.releaseNext();
    await Promise.all([bound.done, general.done, discord.done]);
  });
});

describe('chat commands', () => {
  it('are answered at once, without a turn, a session record or a transcript entry', async () => {
    const target = await rig({ owners: ['slack:OWNER'] });
    const whoami = target.send(slackMessage('/whoami'));
    await whoami.accepted;
    const result = await whoami.done;
    expect(result.replies.map((reply) => reply.text)).toEqual(['You are slack:U1 (not an owner).']);
    expect(target.deliveredTexts()).toEqual(['You are slack:U1 (not an owner).']);
    expect(target.delivered[0]?.route).toEqual({
      channel: 'slack',
      chatType: 'channel',
      chatId: 'C1',
      threadId: '1.1',
    });
    expect(target.gated.turns).toHaveLength(0);
    expect(await target.sessions.get(THREAD_KEY)).toBeUndefined();
    expect(await target.inbox.list()).toEqual([]);
  });

  it('refuse an owner command to others, and list only the commands the sender may use', async () => {
    const target = await rig({ owners: ['slack:OWNER'] });
    const refused = await target.router.dispatch(slackMessage('/config get'));
    expect(refused.replies[0]?.text).toBe(
      '/config refused: slack:U1, role member may not run /config: role member lacks it (roles.member.commands: *).',
    );
    const unknown = await target.router.dispatch(slackMessage('/nope'));
    expect(unknown.replies[0]?.text).toBe(
      'Unknown command /nope. Commands: /help, /status, /new, /compact, /stop, /subagents, /usage, /whoami, /link, /approve, /deny.',
    );
    const owner = await target.router.dispatch(slackMessage('/nope', { senderId: 'slack:OWNER' }));
    expect(owner.replies[0]?.text).toContain(
      '/whoami, /link, /config, /restart, /update, /rescue, /approve, /deny, /confirm, /pair.',
    );
  });

  it('run the commands the router was given instead of the built-in ones', async () => {
    const target = await createRouterRig({
      commands: [
        { name: 'ping', summary: 'Answers pong.', run: ({ sessionKey }) => `pong from ${sessionKey}` },
      ],
    });
    cleanups.push(() => target.close());
    expect((await target.router.dispatch(slackMessage('/ping'))).replies[0]?.text).toBe(
      `pong from ${THREAD_KEY}`,
    );
    expect((await target.router.dispatch(slackMessage('/whoami'))).replies[0]?.text).toMatch(
      /^Unknown command/,
    );
  });
});

describe('the inbox', () => {
  it('holds a message from the moment it is accepted until the turn that answers it ends', async () => {
    const target = await rig();
    const message = slackMessage('remember me');
    const sent = target.send(message);
    await sent.accepted;
    expect(await target.inbox.list()).toMatchObject([
      {
        sessionKey: THREAD_KEY,
        agentId: 'main',
        entry: { text: 'remember me', messageId: message.messageId },
      },
    ]);
    await target.gated.waitForOpen(1);
    target.gated.releaseNext();
    await expect(sent.done).resolves.toMatchObject({ sessionKey: THREAD_KEY, status: 'done' });
    expect(await target.inbox.list()).toEqual([]);
    expect((await target.sessions.transcript(THREAD_KEY)).map((entry) => entry.role)).toEqual([
      'user',
      'assistant',
    ]);
  });
});

describe('a message whose turns die with the process', () => {
  it('is given up after three starts died answering it; one that waited unstarted is not counted', async () => {
    const logger = createLogger({ level: 'silent' }).logger;
    const store = await createStore({ url: 'memory://', stateDir: '/nonexistent', logger });
    cleanups.push(() => store.close());
    // Each rig is one process on the same store; one that is dropped unclosed is a crash.
    const first = await createRouterRig({ store });
    void first.send(slackMessage('crash me')).done;
    await first.gated.waitForOpen(1);
    void first.send(slackMessage('behind it')).done;
    await expect.poll(() => first.inbox.list().then((items) => items.length)).toBe(2);
    for (let start = 2; start <= 3; start += 1) {
      const crashed = await createRouterRig({ store });
      expect(await crashed.router.resume()).toBe(2);
      await crashed.gated.waitForOpen(1);
      expect(crashed.gated.turns.map((turn) => turn.messages.map((entry) => entry.text))).toEqual([
        ['crash me'],
      ]);
    }
    const last = await createRouterRig({ store });
    cleanups.push(() => last.close());
    expect(await last.router.resume()).toBe(2);
    await last.gated.waitForOpen(1);
    expect(last.deliveredTexts()).toEqual([
      'I could not answer your message: the gateway stopped each of the 3 times it tried.',
    ]);
    expect(last.gated.turns.map((turn) => turn.messages.map((entry) => entry.text))).toEqual([['behind it']]);
    last.gated.releaseNext();
    await expect.poll(() => last.inbox.list()).toEqual([]);
    expect((await last.sessions.transcript(THREAD_KEY)).map((entry) => entry.text)).toEqual([
      'crash me',
      'I could not answer your message: the gateway stopped each of the 3 times it tried.',
      'behind it',
      'answered: behind it',
    ]);
  });
});

describe('a turn the last process began and did not end', () => {
  /** A message whose turn began (its entry is in the transcript) in a process that then died. */
  async function crashedTurn(config: Record<string, unknown> = {}) {
    const logger = createLogger({ level: 'silent' }).logger;
    const store = await createStore({ url: 'memory://', stateDir: '/nonexistent', logger });
    cleanups.push(() => store.close());
    const crashed = await createRouterRig({ store, config });
    void crashed.send(slackMessage('cut short')).done;
    await crashed.gated.waitForOpen(1);
    return { store, crashed };
  }

  /** The next start finds the message answered: it leaves the inbox, no turn runs, the chat hears nothing. */
  async function expectAnsweredBefore(store: Store): Promise<void> {
    const next = await createRouterRig({ store });
    cleanups.push(() => next.close());
    expect(await next.router.resume()).toBe(1);
    await expect.poll(() => next.inbox.list()).toEqual([]);
    expect(next.gated.turns).toEqual([]);
    expect(next.deliveredTexts()).toEqual([]);
  }

  it('is resumed: its turn runs again with the entry written once, marked resumed', async () => {
    const { store } = await crashedTurn();
    const next = await createRouterRig({ store });
    cleanups.push(() => next.close());
    expect(await next.router.resume()).toBe(1);
    await next.gated.waitForOpen(1);
    expect(next.gated.turns.map((turn) => [turn.resumed, answered(turn)])).toEqual([[true, ['cut short']]]);
    next.gated.releaseNext();
    await expect.poll(() => next.inbox.list()).toEqual([]);
  });

  it('that had answered already (the process died before the message left the inbox) is not run again', async () => {
    const { store, crashed } = await crashedTurn();
    await crashed.sessions.append(THREAD_KEY, { role: 'assistant', text: 'the answer', runId: 'r1' });
    await expectAnsweredBefore(store);
  });

  it('that answered on its third attempt is neither given up nor answered again', async () => {
    const { store } = await crashedTurn();
    for (let start = 2; start <= 3; start += 1) {
      const crashed = await createRouterRig({ store });
      expect(await crashed.router.resume()).toBe(1);
      await crashed.gated.waitForOpen(1);
      // The third attempt answers, and the process dies before the message leaves the inbox.
      if (start === 3)
        await crashed.sessions.append(THREAD_KEY, { role: 'assistant', text: 'the answer', runId: 'r3' });
    }
    await expectAnsweredBefore(store);
  });

  it('is ended with a message when its agent says resume "off"', async () => {
    const config = { agents: { main: { resume: 'off' } } };
    const { store } = await crashedTurn(config);
    const next = await createRouterRig({ store, config });
    cleanups.push(() => next.close());
    expect(await next.router.resume()).toBe(1);
    await expect.poll(() => next.inbox.list()).toEqual([]);
    expect(next.gated.turns).toEqual([]);
    const told =
      'A restart cut my answer to your message short, and this agent does not resume turns (agents.main.resume is "off"): please ask again.';
    expect(next.deliveredTexts()).toEqual([told]);
    expect((await next.sessions.transcript(THREAD_KEY)).map((entry) => entry.text)).toEqual([
      'cut short',
      told,
    ]);
  });

  it('is ended with a message when it was cut short longer ago than agentLoop.resumeWithinMs', async () => {
    const config = { agentLoop: { resumeWithinMs: 60_000 } };
    const { store } = await crashedTurn(config);
    // Only the clock the age is read with: 61 s after the entry was written.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 61_000 });
    const next = await createRouterRig({ store, config });
    cleanups.push(() => next.close());
    expect(await next.router.resume()).toBe(1);
    await expect.poll(() => next.inbox.list()).toEqual([]);
    expect(next.gated.turns).toEqual([]);
    expect(next.deliveredTexts()).toEqual([
      'A restart cut my answer to your message short 1 min ago, longer than the resume limit (agentLoop.resumeWithinMs, 1 min): it is not resumed, please ask again.',
    ]);
  });
});

describe('a turn that wrote many entries before its process died', () => {
  it('has its message found in the transcript pages back: counted once, not written again', async () => {
    const logger = createLogger({ level: 'silent' }).logger;
    const store = await createStore({ url: 'memory://', stateDir: '/nonexistent', logger });
    cleanups.push(() => store.close());
    const crashed = await createRouterRig({ store });
    void crashed.send(slackMessage('a long job')).done;
    await crashed.gated.waitForOpen(1);
    for (let round = 0; round < 450; round += 1)
      await crashed.sessions.append(THREAD_KEY, { role: 'tool', text: `result ${round}` });
    const next = await createRouterRig({ store });
    cleanups.push(() => next.close());
    expect(await next.router.resume()).toBe(1);
    await next.gated.waitForOpen(1);
    expect(await next.inbox.list()).toMatchObject([{ attempts: 1 }]);
    next.gated.releaseNext();
    await expect.poll(() => next.inbox.list()).toEqual([]);
    const texts = (await next.sessions.transcript(THREAD_KEY)).map((entry) => entry.text);
    expect(texts.filter((text) => text === 'a long job')).toHaveLength(1);
    expect(texts.at(-1)).toBe('answered: a long job');
  });
});

describe('a message dispatched before resume() (a channel that connects first)', () => {
  it('is answered once: resume queues only what the last process left', async () => {
    const target = await rig();
    // A Discord catch-up or a held Slack event reaches the router as the channels connect.
    const early = target.send(slackMessage('early'));
    await early.accepted;
    expect(await target.router.resume()).toBe(0);
    await target.gated.waitForOpen(1);
    target.gated.releaseNext();
    await early.done;
    await expect.poll(() => target.inbox.list()).toEqual([]);
    const texts = (await target.sessions.transcript(THREAD_KEY)).map((entry) => entry.text);
    expect(texts).toEqual(['early', 'answered: early']);
  });
});

describe('an inbox item from an earlier release', () => {
  it('keeps the starts it counted when its turn began, and its entry is not written twice', async () => {
    const logger = createLogger({ level: 'silent' }).logger;
    const store = await createStore({ url: 'memory://', stateDir: '/nonexistent', logger });
    cleanups.push(() => store.close());
    const earlier = await createRouterRig({ store });
    const message = slackMessage('from before');
    const entry = {
      role: 'user' as const,
      text: message.text,
      senderId: message.senderId,
      messageId: message.messageId,
    };
    await earlier.sessions.ensure(THREAD_KEY, {
      agentId: 'main',
      route: { channel: 'slack', chatType: 'channel', chatId: 'C1', threadId: '1.1' },
    });
    const stored = await earlier.sessions.append(THREAD_KEY, entry);
    const item = await earlier.inbox.add({
      sessionKey: THREAD_KEY,
      agentId: 'main',
      route: { channel: 'slack', chatType: 'channel', chatId: 'C1', threadId: '1.1' },
      entry,
    });
    // What those releases wrote when the turn began: the entry and the start counted.
    await earlier.inbox.update({ ...item, stored, attempts: 2 });
    const next = await createRouterRig({ store });
    cleanups.push(() => next.close());
    expect(await next.router.resume()).toBe(1);
    await next.gated.waitForOpen(1);
    expect(await next.inbox.list()).toEqual([{ ...item, attempts: 2 }]);
    next.gated.releaseNext();
    await expect.poll(() => next.inbox.list()).toEqual([]);
    expect((await next.sessions.transcript(THREAD_KEY)).map((written) => written.text)).toEqual([
      'from before',
      'answered: from before',
    ]);
  });
});

describe('redelivery', () => {
  it('takes a message resent by the platform once, whether it waits in the inbox or was answered', async () => {
    const target = await rig();
    const message = slackMessage('only once');
    const sent = target.send(message);
    await target.gated.waitForOpen(1);
    const resent = target.send(message, { redelivery: true });
    await resent.accepted;
    await expect(resent.done).resolves.toEqual({ sessionKey: THREAD_KEY, replies: [] });
    expect(await target.inbox.list()).toHaveLength(1);
    target.gated.releaseNext();
    await sent.done;
    await expect(target.router.dispatch(message, { redelivery: true })).resolves.toEqual({
      sessionKey: THREAD_KEY,
      replies: [],
    });
    expect(target.gated.turns).toHaveLength(1);
    expect(await target.inbox.list()).toEqual([]);
  });
});

describe('a busy session', () => {
  it('shows its turn and queue in /status, and /new stops the turn it runs', async () => {
    const target = await rig();
    const { router, send, gated } = target;
    expect(router.sessionStatus(THREAD_KEY)).toBe('idle');
    const first = send(slackMessage('long job'));
    await gated.waitForOpen(1);
    const waiting = await router.startTurn(runtimeTurn(THREAD_KEY, 'a signal'));
    expect(router.sessionStatus(THREAD_KEY)).toBe('running');
    expect(router.agentBusy('main')).toBe(true);
    const status = await router.dispatch(slackMessage('/status'));
    expect(status.replies[0]?.text).toContain('Turn: running; queue: 1 waiting');
    const fresh = await router.dispatch(slackMessage('/new'));
    expect(fresh.replies[0]?.text).toBe('Started a fresh session (stopped the running turn).');
    await expect(first.done).resolves.toMatchObject({ status: 'killed' });
    expect(gated.turns[0]?.signal.reason).toMatchObject({ status: 'killed' });
    await gated.waitForOpen(1);
    gated.releaseNext();
    await waiting.done;
    await expect.poll(() => router.agentBusy('main')).toBe(false);
  });

  it('refuses a runtime turn for an agent that is not configured', async () => {
    const { router } = await rig();
    await expect(router.startTurn(runtimeTurn('agent:ghost:main', 'hello', 'ghost'))).rejects.toMatchObject({
      code: 'GATEWAY_STATE',
      message: 'agent "ghost" is not configured',
    });
  });
});
