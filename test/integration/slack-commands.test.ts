import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import type { InboundMessage } from '../../src/base/messages/index.js';
import type { SlackAdapter, SlackConfig } from '../../src/surfaces/channels/slack/index.js';
import { type FakeSlack, startFakeSlack } from '../fakes/fake-slack.js';
import { postSignedCommand, slashCommand } from '../fakes/fake-slack-commands.js';
import { createRouterRig, type RouterRig, slackMessage } from '../fakes/router-rig.js';
import { createTestSlackAdapter } from '../fakes/slack-test-adapter.js';

const SECRET = 'signing-secret-for-tests';

interface Harness {
  fake: FakeSlack;
  adapter: SlackAdapter;
  rig: RouterRig;
  /** What the adapter dispatched, in order. */
  dispatched: InboundMessage[];
  /** Lets the held dispatches reach the real router. */
  release(): void;
}

let current: Harness | undefined;

afterEach(async () => {
  current?.release();
  await current?.adapter.stop();
  await current?.fake.close();
  await current?.rig.close();
  current = undefined;
});

/**
 * The real Bolt against the fake Slack, in front of the real router (its command table and owner
 * checks) whose turns are held open: a slow model. Every dispatch waits for `release()`, so a test
 * sees what Slack got before the router answered.
 */
async function setup(config: Partial<SlackConfig> = {}): Promise<Harness> {
  const fake = await startFakeSlack();
  const rig = await createRouterRig({ config: { owners: ['slack:UOWNER'] } });
  const adapter = createTestSlackAdapter(fake, { signingSecret: SECRET, ...config });
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const dispatched: InboundMessage[] = [];
  await adapter.start(async (message, options) => {
    dispatched.push(message);
    await released;
    return rig.router.dispatch(message, options);
  });
  current = { fake, adapter, rig, dispatched, release };
  return current;
}

async function serveEvents(adapter: SlackAdapter): Promise<string> {
  const listener = adapter.eventsListener;
  if (listener === undefined) throw new Error('no events listener in HTTP mode');
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
}

/** A turn in C1's channel session held open by the gated runner: the model is still thinking. */
async function slowTurn(rig: RouterRig): Promise<void> {
  const { accepted } = rig.send(slackMessage('think hard', { threadId: undefined }));
  await accepted;
  await rig.gated.waitForOpen(1);
}

describe('Slack slash command in Socket Mode', () => {
  it('acks before the dispatch, then answers /switchboard status in the channel while a turn runs', async () => {
    const { fake, rig, dispatched, release } = await setup();
    await slowTurn(rig);
    // Resolves when the client acked the envelope: the dispatch is still held.
    await fake.command(slashCommand(fake, { user: 'U1', channel: 'C1', text: 'status' }));
    await expect.poll(() => dispatched.length).toBe(1);
    expect(dispatched[0]).toMatchObject({
      channel: 'slack',
      chatType: 'channel',
      chatId: 'C1',
      senderId: 'slack:U1',
      text: '/status',
      nativeCommand: true,
    });
    expect(fake.callsTo('chat.postMessage')).toEqual([]);
    release();
    const post = await fake.waitForCall('chat.postMessage');
    expect(post.args.channel).toBe('C1');
    expect(post.args.thread_ts).toBeUndefined();
    expect(post.args.text).toContain('Session: agent:main:slack:channel:C1');
    expect(post.args.text).toContain('Turn: running');
    // Answered once, by the adapter: the router did not also deliver it by route.
    expect(rig.delivered).toEqual([]);
    expect(fake.callsTo('chat.postEphemeral')).toEqual([]);
    expect(fake.badAcks).toEqual([]);
  });

  it('answers an owner command to the sender alone: refused for others, shown to an owner', async () => {
    const { fake, release } = await setup();
    release();
    await fake.command(slashCommand(fake, { user: 'U1', channel: 'C1', text: 'config' }));
    const refused = await fake.waitForCall('chat.postEphemeral');
    expect(refused.args).toMatchObject({ channel: 'C1', user: 'U1' });
    expect(refused.args.text).toBe(
      '/config refused: slack:U1, role member may not run /config: role member lacks it (roles.member.commands: *).',
    );
    await fake.command(slashCommand(fake, { user: 'UOWNER', channel: 'C1', text: 'config' }));
    const shown = await fake.waitForCall('chat.postEphemeral', (call) => call.args.user === 'UOWNER');
    expect(shown.args.text).toMatch(/^Usage: \/config get/);
    await fake.command(slashCommand(fake, { user: 'U1', channel: 'C1', text: 'nope' }));
    const unknown = await fake.waitForCall(
      'chat.postEphemeral',
      (call) => call.args.text?.startsWith('Unknown') === true,
    );
    expect(unknown.args.text).not.toContain('/config');
    expect(fake.callsTo('chat.postMessage')).toEqual([]);
  });

  it('hears a command only where it hears a message: DMs by dmPolicy, channels by the channels list', async () => {
    const { fake, dispatched, release } = await setup({ channels: { C2: {} } });
    release();
    await fake.command(slashCommand(fake, { user: 'U2', channel: 'D8', text: 'status' }));
    const dm = await fake.waitForCall('chat.postEphemeral');
    expect(dm.args).toMatchObject({ channel: 'D8', user: 'U2' });
    expect(dm.args.text).toMatch(/not here/);
    await fake.command(slashCommand(fake, { user: 'U2', channel: 'C1', text: 'new' }));
    await expect.poll(() => fake.callsTo('chat.postEphemeral').length).toBe(2);
    expect(dispatched).toEqual([]);
    await fake.command(slashCommand(fake, { user: 'U2', channel: 'C2', text: 'status' }));
    await fake.waitForCall('chat.postMessage', (call) => call.args.channel === 'C2');
    expect(dispatched).toHaveLength(1);
  });

  it('answers in the DM, runs /help without words, and never starts a turn for words that are no command', async () => {
    const { fake, rig, dispatched, release } = await setup({ allowFrom: ['U1'] });
    release();
    await fake.command(slashCommand(fake, { user: 'U1', channel: 'D9', text: '' }));
    const post = await fake.waitForCall('chat.postMessage');
    expect(post.args.channel).toBe('D9');
    expect(dispatched[0]).toMatchObject({ chatType: 'direct', chatId: 'U1', text: '/help' });
    await fake.command(slashCommand(fake, { user: 'U1', channel: 'C1', text: '1+1 please' }));
    const usage = await fake.waitForCall('chat.postEphemeral');
    expect(usage.args.text).toMatch(/^Usage: \/switchboard <command>/);
    expect(dispatched).toHaveLength(1);
    expect(rig.gated.turns).toEqual([]);
  });
});

describe('Slack slash command in HTTP mode', () => {
  it('answers a signed POST with 200 before the dispatch, then posts the answer; a bad signature is 401', async () => {
    const { fake, adapter, dispatched, release } = await setup({ mode: 'http', slashCommand: '/sb' });
    const url = await serveEvents(adapter);
    const payload = slashCommand(fake, { user: 'U1', channel: 'C1', text: 'status', command: '/sb' });
    expect(await postSignedCommand(url, payload, SECRET, { signature: 'v0=00' })).toBe(401);
    // Bolt holds its 200 until the listener returns: it returns right after ack().
    expect(await postSignedCommand(url, payload, SECRET)).toBe(200);
    await expect.poll(() => dispatched.length).toBe(1);
    expect(fake.callsTo('chat.postMessage')).toEqual([]);
    release();
    const post = await fake.waitForCall('chat.postMessage');
    expect(post.args).toMatchObject({ channel: 'C1' });
    expect(post.args.text).toContain('Agent: main');
    expect(dispatched).toHaveLength(1);
  });
});
