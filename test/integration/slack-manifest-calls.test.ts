import { afterEach, describe, expect, it } from 'vitest';
import type { DeliveryRoute, InboundMessage } from '../../src/base/messages/index.js';
import { createSlackManifest } from '../../src/setup/slack-manifest.js';
import { SLACK_METHOD_SCOPES } from '../../src/setup/slack-scopes.js';
import type { SlackAdapter } from '../../src/surfaces/channels/slack/index.js';
import { type FakeSlack, startFakeSlack } from '../fakes/fake-slack.js';
import { blockActions } from '../fakes/fake-slack-actions.js';
import { createTestSlackAdapter } from '../fakes/slack-test-adapter.js';

// The methods the real Bolt client calls on the fake Slack while the adapter hears, replies, opens a
// DM, reads a thread and takes clicks: each must be granted by the manifest `switchboard slack manifest` prints.

let running: { fake: FakeSlack; adapter: SlackAdapter } | undefined;

afterEach(async () => {
  await running?.adapter.stop();
  await running?.fake.close();
  running = undefined;
});

const routeOf = (message: InboundMessage): DeliveryRoute => ({
  channel: 'slack',
  chatType: message.chatType,
  chatId: message.chatId,
  ...(message.threadId === undefined ? {} : { threadId: message.threadId }),
});

async function setup() {
  const fake = await startFakeSlack({ botToken: 'xoxb-test', appToken: 'xapp-test' });
  const adapter = createTestSlackAdapter(fake);
  await adapter.start(async (message, options) => {
    options?.accepted?.();
    if (message.action !== undefined)
      return { sessionKey: 'test', replies: [{ id: 'a1', text: 'Approved' }] };
    const actions = [{ label: 'Approve', value: 'approval:K1:approve:h1' }];
    await adapter.send(routeOf(message), { id: 'r1', text: `Run ${message.text}?`, actions });
    return { sessionKey: 'test', replies: [] };
  });
  running = { fake, adapter };
  return running;
}

describe('the Slack methods the adapter calls', () => {
  it('are all granted by the manifest', async () => {
    const { fake, adapter } = await setup();
    await fake.deliver({
      type: 'message',
      channel: 'C1',
      channel_type: 'channel',
      user: 'U1',
      text: '<@UBOT> deploy',
      ts: '10.1',
    });
    const request = await fake.waitForCall('chat.postMessage', (call) => call.args.blocks !== undefined);
    await fake.waitForCall('reactions.remove');
    const ts = [...fake.messages.values()].find((message) => message.text === request.args.text)?.ts ?? '';
    await fake.interact(blockActions(fake, { ts, user: 'U1', label: 'Approve' }));
    await fake.waitForCall('chat.update');
    // Not our button: answered to the clicker only.
    await fake.interact(
      blockActions(fake, { ts, user: 'U1', label: 'Approve', edit: { action_id: 'theirs' } }),
    );
    await fake.waitForCall('chat.postEphemeral');
    await adapter.send({ channel: 'slack', chatType: 'direct', chatId: 'U2' }, { id: 'n1', text: 'note' });
    // A first mention in a thread: its earlier messages are read.
    const said = { type: 'message', channel: 'C1', channel_type: 'channel', user: 'U3' };
    await fake.deliver({ ...said, text: 'the disk is full', ts: '20.1' });
    await fake.deliver({ ...said, text: '<@UBOT> why?', ts: '20.2', thread_ts: '20.1' });
    await fake.waitForCall('chat.postMessage', (call) => call.args.thread_ts === '20.1');

    const called = [...new Set(fake.calls.map((call) => call.method))].sort();
    expect(called).toEqual([
      'apps.connections.open',
      'auth.test',
      'chat.postEphemeral',
      'chat.postMessage',
      'chat.update',
      'conversations.info',
      'conversations.open',
      'conversations.replies',
      'reactions.add',
      'reactions.remove',
      'users.info',
    ]);
    const granted = new Set(
      createSlackManifest({ mode: 'socket', name: 'S', command: '/s' }).oauth_config.scopes.bot,
    );
    for (const method of called) {
      expect(SLACK_METHOD_SCOPES[method], `${method} is not in slack-scopes.ts`).toBeDefined();
      for (const scope of SLACK_METHOD_SCOPES[method] ?? [])
        expect(granted, `${method} needs ${scope}`).toContain(scope);
    }
  });
});
