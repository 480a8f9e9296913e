import { afterEach, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../fakes/fake-slack.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

/**
 * Slack through the whole gateway: the real Bolt (Socket Mode) against the fake Slack, the router,
 * the session store and chat commands; owners are matched by Slack user id.
 */

let gateway: TestGateway | undefined;
let fake: FakeSlack | undefined;
afterEach(async () => {
  await gateway?.dispose();
  await fake?.close();
  gateway = undefined;
  fake = undefined;
});

const mention = (ts: string, text: string, extra: Record<string, unknown> = {}) => ({
  type: 'message',
  channel: 'C1',
  channel_type: 'channel',
  user: 'U1',
  text: `<@UBOT> ${text}`,
  ts,
  ...extra,
});

async function setup(slack: Record<string, unknown> = {}) {
  fake = await startFakeSlack({ echoPosts: true });
  gateway = await startTestGateway({
    config: {
      owners: ['webchat:local', 'slack:U1'],
      channels: {
        slack: {
          botToken: 'xoxb-gateway-test',
          appToken: 'xapp-gateway-test',
          apiUrl: fake.apiUrl,
          ...slack,
        },
      },
    },
  });
  await fake.connected();
  return { fake, gateway };
}

describe('Slack through the gateway', () => {
  it('answers a mention in its thread, knows the owner by Slack id, and keeps the thread as the session', async () => {
    const { fake, gateway } = await setup();
    await fake.deliver(mention('20.1', '/whoami'));
    const whoami = await fake.waitForCall(
      'chat.postMessage',
      (call) => call.args.text?.startsWith('You are') === true,
    );
    expect(whoami.args).toMatchObject({
      channel: 'C1',
      thread_ts: '20.1',
      text: 'You are slack:U1 (owner).',
    });

    await fake.deliver(mention('20.2', 'hello there', { user: 'U2' }));
    const reply = await fake.waitForCall('chat.postMessage', (call) => call.args.thread_ts === '20.2');
    expect(reply.args.text).toContain('No model is configured');
    const sessions = await gateway.request('GET', '/api/sessions');
    expect(sessions.body.sessions.map((session: any) => session.key)).toContain(
      'agent:main:slack:channel:C1:thread:20.2',
    );
    // The eyes reaction marked the turn and was taken off after it.
    await fake.waitForCall('reactions.remove', (call) => call.args.timestamp === '20.2');
  });

  it('posts the restart note in the thread where the owner asked for the restart', async () => {
    const { fake, gateway } = await setup();
    await fake.deliver(mention('30.1', '/restart back in a moment'));
    await fake.waitForCall(
      'chat.postMessage',
      (call) => call.args.text?.startsWith('Restarting in') === true,
    );
    await expect.poll(() => gateway.host.restarts, { timeout: 15_000 }).toBe(1);
    const note = await fake.waitForCall(
      'chat.postMessage',
      (call) => call.args.text === 'Gateway restarted (restart): back in a moment',
      15_000,
    );
    expect(note.args).toMatchObject({ channel: 'C1', thread_ts: '30.1' });
  });

  it('keeps running without Slack when Slack cannot be reached (after a few quick retries)', async () => {
    fake = await startFakeSlack();
    gateway = await startTestGateway({
      config: {
        channels: {
          slack: { botToken: 'xoxb-wrong', appToken: 'xapp-x', apiUrl: 'http://127.0.0.1:9/api/' },
        },
      },
    });
    expect(gateway.logLines.some((line) => line.includes('slack could not start'))).toBe(true);
    expect((await gateway.send('/whoami')).body.replies[0].text).toContain('webchat:local');
  }, 30_000);
});
