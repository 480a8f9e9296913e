import { afterEach, describe, expect, it } from 'vitest';
import { createLocalMemory, readNames } from '../../src/surfaces/channels/index.js';
import type { SlackAdapter } from '../../src/surfaces/channels/slack/index.js';
import { type FakeSlack, startFakeSlack } from '../fakes/fake-slack.js';
import { createTestSlackAdapter } from '../fakes/slack-test-adapter.js';

// Readable names (issue 33 item 6): the Slack adapter looks the sender and the channel up
// (`users.info`, `conversations.info`, through the real Bolt client) in the background and keeps
// them in its memory, where the control plane reads them; a slow lookup never holds a reply.

let running: { fake: FakeSlack; adapter: SlackAdapter } | undefined;

afterEach(async () => {
  await running?.adapter.stop();
  await running?.fake.close();
  running = undefined;
});

describe('Slack display names', () => {
  it('are looked up once without holding the reply, and kept for the control UI', async () => {
    const fake = await startFakeSlack({
      botToken: 'xoxb-test',
      appToken: 'xapp-test',
      users: { U1: 'Ann' },
      channelNames: { C1: 'general' },
    });
    const memory = createLocalMemory();
    const adapter = createTestSlackAdapter(fake, {}, { memory });
    running = { fake, adapter };
    await adapter.start(async (message, options) => {
      options?.accepted?.();
      await adapter.send(
        { channel: 'slack', chatType: 'channel', chatId: message.chatId, threadId: message.threadId ?? '' },
        { id: 'r1', text: `hello ${message.senderId}` },
      );
      return { sessionKey: 'test', replies: [] };
    });
    const release = fake.hold('users.info');
    const event = { type: 'message', channel: 'C1', channel_type: 'channel', user: 'U1', ts: '10.1' };
    await fake.deliver({ ...event, text: '<@UBOT> hi' });
    // The reply is posted while users.info is still unanswered.
    await fake.waitForCall('chat.postMessage');
    expect(await readNames(memory).user('U1')).toBeUndefined();
    release();
    await expect.poll(() => readNames(memory).user('U1')).toBe('Ann');
    await expect.poll(() => readNames(memory).chat('C1')).toBe('#general');
    // A second message asks Slack nothing more.
    await fake.deliver({ ...event, ts: '10.2', thread_ts: '10.1', text: '<@UBOT> again' });
    await fake.waitForCall(
      'chat.postMessage',
      (call) => call.args.thread_ts === '10.1' && call.args.text === 'hello slack:U1',
    );
    expect(fake.callsTo('users.info')).toHaveLength(1);
    expect(fake.callsTo('conversations.info')).toHaveLength(1);
  });
});
