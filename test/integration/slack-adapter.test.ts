import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import type { DeliveryRoute, InboundMessage } from '../../src/base/messages/index.js';
import type { SlackAdapter, SlackConfig } from '../../src/surfaces/channels/slack/index.js';
import { eventCallback, type FakeSlack, postSignedEvent, startFakeSlack } from '../fakes/fake-slack.js';
import { createTestSlackAdapter } from '../fakes/slack-test-adapter.js';

const SECRET = 'signing-secret-for-tests';

interface Harness {
  fake: FakeSlack;
  adapter: SlackAdapter;
  inbound: InboundMessage[];
}

let current: Harness | undefined;

afterEach(async () => {
  await current?.adapter.stop();
  await current?.fake.close();
  current = undefined;
});

const routeOf = (message: InboundMessage): DeliveryRoute => ({
  channel: 'slack',
  chatType: message.chatType,
  chatId: message.chatId,
  ...(message.threadId === undefined ? {} : { threadId: message.threadId }),
});

/** The real Bolt against the fake Slack; every heard message is answered `re: <text>` (or `reply(text)`). */
async function setup(
  config: Partial<SlackConfig> = {},
  reply = (text: string) => `re: ${text}`,
  /** Whether the (stand-in) router stores the message; when not, it rejects before `accepted`. */
  stores: (text: string) => boolean = () => true,
) {
  const fake = await startFakeSlack({ echoPosts: true });
  const adapter = createTestSlackAdapter(fake, { signingSecret: SECRET, allowFrom: ['UALLOWED'], ...config });
  const inbound: InboundMessage[] = [];
  // As the router does: the message is taken (stored) first, then its turn runs.
  await adapter.start(async (message, options) => {
    inbound.push(message);
    if (!stores(message.text)) throw new Error('the store is down');
    options?.accepted?.();
    await adapter.send(routeOf(message), { id: `r${inbound.length}`, text: reply(message.text) });
    return { sessionKey: 'test', replies: [] };
  });
  current = { fake, adapter, inbound };
  return current;
}

const posted = (fake: FakeSlack, text: string) =>
  fake.waitForCall('chat.postMessage', (call) => call.args.text === text);
const said = (ts: string, text: string, extra: Record<string, unknown> = {}) => ({
  type: 'message',
  channel: 'C1',
  channel_type: 'channel',
  user: 'U1',
  text,
  ts,
  ...extra,
});

describe('Slack adapter, Socket Mode', () => {
  it('hears a mention in a channel and replies in its thread, with eyes during the turn', async () => {
    const { fake, adapter, inbound } = await setup();
    expect(adapter.botUserId).toBe('UBOT');
    await fake.deliver(said('10.1', '<@UBOT> status please'));
    const reply = await posted(fake, 're: status please');
    expect(reply.args).toMatchObject({ channel: 'C1', thread_ts: '10.1' });
    expect(inbound).toEqual([
      {
        channel: 'slack',
        chatType: 'channel',
        chatId: 'C1',
        // A top-level message opens its own thread session; replies there continue it.
        threadId: '10.1',
        senderId: 'slack:U1',
        text: 'status please',
        messageId: '10.1',
        teamId: 'T1',
      },
    ]);
    const removed = await fake.waitForCall('reactions.remove');
    expect(removed.args).toMatchObject({ channel: 'C1', timestamp: '10.1', name: 'eyes' });
    const order = fake.calls.map((call) => call.method).filter((method) => method !== 'auth.test');
    expect(order.slice(-3)).toEqual(['reactions.add', 'chat.postMessage', 'reactions.remove']);
    expect(fake.badAcks).toEqual([]);
  });

  it('handles a message once when it comes as message and app_mention, and on a retry', async () => {
    const { fake, inbound } = await setup();
    await fake.deliver(said('11.1', '<@UBOT> once'), { eventId: 'Ev-a' });
    await fake.deliver({ ...said('11.1', '<@UBOT> once'), type: 'app_mention' }, { eventId: 'Ev-b' });
    await fake.deliver(said('11.1', '<@UBOT> once'), { eventId: 'Ev-a', retryAttempt: 1 });
    await posted(fake, 're: once');
    await fake.deliver(said('11.2', '<@UBOT> sentinel'));
    await posted(fake, 're: sentinel');
    expect(inbound.map((message) => message.text)).toEqual(['once', 'sentinel']);
  });

  it('ignores a channel message without a mention but hears replies in a thread it takes part in', async () => {
    const { fake, inbound } = await setup();
    await fake.deliver(said('12.1', 'just chatting'));
    await fake.deliver(said('12.2', '<@UBOT> start'));
    await posted(fake, 're: start');
    await fake.deliver(said('12.3', 'and a follow-up', { thread_ts: '12.2' }));
    const followUp = await posted(fake, 're: and a follow-up');
    expect(followUp.args.thread_ts).toBe('12.2');
    await fake.deliver(said('12.4', 'another thread', { thread_ts: '12.1' }));
    await fake.deliver(said('12.5', '<@UBOT> sentinel'));
    await posted(fake, 're: sentinel');
    expect(inbound.map((message) => [message.text, message.threadId])).toEqual([
      ['start', '12.2'],
      ['and a follow-up', '12.2'],
      ['sentinel', '12.5'],
    ]);
  });

  it('hears DMs from allowed users only and answers in the DM channel', async () => {
    const { fake, inbound } = await setup();
    const dm = (user: string, ts: string, text: string) => ({
      ...said(ts, text),
      channel: `D${user}`,
      channel_type: 'im',
      user,
    });
    await fake.deliver(dm('USTRANGER', '13.1', 'let me in'));
    await fake.deliver(dm('UALLOWED', '13.2', 'hello bot'));
    const reply = await posted(fake, 're: hello bot');
    expect(reply.args.channel).toBe('DUALLOWED');
    expect(reply.args.thread_ts).toBeUndefined();
    expect(inbound).toEqual([
      expect.objectContaining({ chatType: 'direct', chatId: 'UALLOWED', senderId: 'slack:UALLOWED' }),
    ]);
  });

  it('opens a DM channel to send to a user it has not heard from', async () => {
    const { fake, adapter } = await setup();
    await adapter.send(
      { channel: 'slack', chatType: 'direct', chatId: 'U9' },
      { id: 'n1', text: 'restarted' },
    );
    expect(fake.callsTo('conversations.open')[0]?.args.users).toBe('U9');
    expect((await posted(fake, 'restarted')).args.channel).toBe('DU9');
  });

  it("ignores its own echoed posts and other bots' messages", async () => {
    const { fake, inbound } = await setup();
    await fake.deliver(said('14.1', '<@UBOT> first'));
    await posted(fake, 're: first');
    await fake.deliver(said('14.2', '<@UBOT> echo', { user: 'UBOT', bot_id: 'BBOT' }));
    await fake.deliver(said('14.3', '<@UBOT> from a bot', { user: 'U7', bot_id: 'B7' }));
    await fake.deliver(said('14.4', '<@UBOT> sentinel'));
    await posted(fake, 're: sentinel');
    expect(inbound.map((message) => message.text)).toEqual(['first', 'sentinel']);
  });

  it('reconnects by itself when Slack rotates the connection or the connection drops', async () => {
    const { fake, inbound } = await setup();
    fake.disconnect('refresh');
    await expect.poll(() => fake.callsTo('apps.connections.open').length, { timeout: 10_000 }).toBe(2);
    await expect.poll(() => fake.sockets, { timeout: 10_000 }).toBe(1);
    await fake.deliver(said('17.1', '<@UBOT> after a refresh'));
    await posted(fake, 're: after a refresh');

    fake.disconnect('drop');
    await expect.poll(() => fake.callsTo('apps.connections.open').length, { timeout: 15_000 }).toBe(3);
    await expect.poll(() => fake.sockets, { timeout: 10_000 }).toBe(1);
    await fake.deliver(said('17.2', '<@UBOT> after a drop'));
    await posted(fake, 're: after a drop');
    expect(inbound.map((message) => message.text)).toEqual(['after a refresh', 'after a drop']);
  }, 40_000);

  it('rides out a freeze shorter than channels.slack.pongTimeoutMs, and reconnects after a longer one', async () => {
    const { fake, inbound } = await setup({ pongTimeoutMs: 20_000 });
    const thaw = fake.freeze();
    // Past Slack's fixed 5 s pong timeout (pings go out every third of the timeout): no reconnect.
    await new Promise((resolve) => setTimeout(resolve, 7_000));
    thaw();
    await fake.deliver(said('18.1', '<@UBOT> after a freeze'));
    await posted(fake, 're: after a freeze');
    expect(fake.callsTo('apps.connections.open')).toHaveLength(1);
    expect(inbound.map((message) => message.text)).toEqual(['after a freeze']);
    await current?.adapter.stop();
    await fake.close();

    const short = await setup({ pongTimeoutMs: 1_500 });
    const thawShort = short.fake.freeze();
    await expect
      .poll(() => short.fake.callsTo('apps.connections.open').length, { timeout: 10_000 })
      .toBeGreaterThan(1);
    thawShort();
  }, 40_000);

  it('hears an app_mention alone (apps subscribed to mentions only)', async () => {
    const { fake, inbound } = await setup();
    await fake.deliver({ type: 'app_mention', channel: 'C2', user: 'U1', text: '<@UBOT> ping', ts: '16.1' });
    expect((await posted(fake, 're: ping')).args).toMatchObject({ channel: 'C2', thread_ts: '16.1' });
    expect(inbound[0]).toMatchObject({ chatType: 'channel', chatId: 'C2', text: 'ping', teamId: 'T1' });
  });

  it('posts to the channel itself when no turn runs there (a restart note), to a given thread otherwise', async () => {
    const { fake, adapter } = await setup();
    await adapter.send(
      { channel: 'slack', chatType: 'channel', chatId: 'C3' },
      { id: 'n1', text: 'back up' },
    );
    expect((await posted(fake, 'back up')).args.thread_ts).toBeUndefined();
    const thread = { channel: 'slack', chatType: 'channel', chatId: 'C3', threadId: '17.1' } as const;
    await adapter.send(thread, { id: 'n2', text: 'in the thread' });
    expect((await posted(fake, 'in the thread')).args.thread_ts).toBe('17.1');
  });

  it('goes on after a failed turn and removes its reaction', async () => {
    const { fake, inbound } = await setup({}, (text) => {
      if (text === 'fail') throw new Error('turn failed');
      return `re: ${text}`;
    });
    await fake.deliver(said('18.1', '<@UBOT> fail'));
    await fake.waitForCall('reactions.remove', (call) => call.args.timestamp === '18.1');
    await fake.deliver(said('18.2', '<@UBOT> next'));
    await posted(fake, 're: next');
    expect(inbound.map((message) => message.text)).toEqual(['fail', 'next']);
  });

  it('splits a 5000-character reply into two posts in the thread', async () => {
    const long = Array.from(
      { length: 100 },
      (_, index) => `${String(index).padStart(3, '0')} ${'z'.repeat(45)}`,
    ).join('\n');
    const { fake } = await setup({}, () => long);
    await fake.deliver(said('15.1', '<@UBOT> long one'));
    await fake.waitForCall('reactions.remove');
    const posts = fake.callsTo('chat.postMessage');
    expect(posts).toHaveLength(2);
    expect(posts.map((call) => call.args.thread_ts)).toEqual(['15.1', '15.1']);
    expect(posts.map((call) => call.args.text).join('\n')).toBe(long);
  });

  it('stops without leaving a socket or a timer behind', async () => {
    const count = () => {
      const resources = process.getActiveResourcesInfo();
      return (kind: string) => resources.filter((resource) => resource === kind).length;
    };
    const before = count();
    const { fake, adapter } = await setup();
    expect(fake.sockets).toBe(1);
    await adapter.stop();
    await fake.close();
    current = undefined;
    expect(fake.sockets).toBe(0);
    const after = count();
    for (const kind of ['TCPSocketWrap', 'TCPServerWrap', 'Timeout'])
      expect(after(kind)).toBeLessThanOrEqual(before(kind));
  });
});

/**
 * The adapter listens nowhere itself; whoever serves HTTP (the gateway) mounts its events
 * listener. This serves it on a free port for the test and answers its `/slack/events` URL.
 */
async function serveEvents(adapter: SlackAdapter): Promise<string> {
  const listener = adapter.eventsListener;
  if (listener === undefined) throw new Error('no events listener in HTTP mode');
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
}

describe('Slack adapter, HTTP mode', () => {
  it('hears a signed event once, answers it, and refuses bad signatures and old timestamps', async () => {
    const { fake, adapter, inbound } = await setup({ mode: 'http', appToken: undefined });
    const url = await serveEvents(adapter);
    const body = eventCallback(said('20.1', '<@UBOT> over http'), 'EvHttp1');
    expect(await postSignedEvent(url, body, SECRET)).toBe(200);
    expect(await postSignedEvent(url, body, SECRET, { retryNum: 1 })).toBe(200);
    expect((await posted(fake, 're: over http')).args.thread_ts).toBe('20.1');
    const forged = eventCallback(said('20.2', '<@UBOT> forged'), 'EvHttp2');
    expect(await postSignedEvent(url, forged, SECRET, { signature: 'v0=deadbeef' })).toBe(401);
    expect(await postSignedEvent(url, forged, 'another-secret')).toBe(401);
    const old = Math.floor(Date.now() / 1000) - 600;
    expect(await postSignedEvent(url, forged, SECRET, { timestamp: old })).toBe(401);
    await postSignedEvent(url, eventCallback(said('20.3', '<@UBOT> sentinel'), 'EvHttp3'), SECRET);
    await posted(fake, 're: sentinel');
    expect(inbound.map((message) => message.text)).toEqual(['over http', 'sentinel']);
  });

  it('does not acknowledge an event whose message was not stored (500), and hears its redelivery', async () => {
    let failures = 1;
    const { fake, adapter, inbound } = await setup({ mode: 'http', appToken: undefined }, undefined, () => {
      failures -= 1;
      return failures < 0;
    });
    const url = await serveEvents(adapter);
    const body = eventCallback(said('21.1', '<@UBOT> store me'), 'EvHttp21');
    expect(await postSignedEvent(url, body, SECRET)).toBe(500);
    expect(await postSignedEvent(url, body, SECRET, { retryNum: 1 })).toBe(200);
    expect((await posted(fake, 're: store me')).args.thread_ts).toBe('21.1');
    expect(inbound.map((message) => message.text)).toEqual(['store me', 'store me']);
    expect(fake.callsTo('chat.postMessage')).toHaveLength(1);
  });
});
