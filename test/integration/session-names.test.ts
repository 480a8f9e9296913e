import { afterEach, describe, expect, it } from 'vitest';
import type { SessionPage, TranscriptPage } from '../../src/surfaces/control/contracts.js';
import { type FakeSlack, startFakeSlack } from '../fakes/fake-slack.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { pollUntil } from '../helpers/process.js';

// Readable names on the sessions API (issue 33 item 6): the real Bolt against the fake Slack,
// whose users.info and conversations.info answer names; the gateway keeps them (in the background)
// and the sessions list and transcript answer a session's title and its senders' display names.

let gateway: TestGateway | undefined;
let fake: FakeSlack | undefined;
afterEach(async () => {
  await gateway?.dispose();
  await fake?.close();
  gateway = undefined;
  fake = undefined;
});

const THREAD_KEY = 'agent:main:slack:channel:C1:thread:503.0001';
const DIRECT_KEY = 'agent:main:slack:direct:U2';

describe('session names on the sessions API', () => {
  it('titles a Slack thread by its channel and first words, and names its senders', async () => {
    fake = await startFakeSlack({ users: { U1: 'Ann Lee', U2: 'Bo' }, channelNames: { C1: 'ops' } });
    const running = await startTestGateway({
      config: {
        owners: ['webchat:local'],
        channels: {
          slack: {
            botToken: 'xoxb-names',
            appToken: 'xapp-names',
            apiUrl: fake.apiUrl,
            allowFrom: ['U2'],
          },
        },
      },
    });
    gateway = running;
    await fake.connected();
    await fake.deliver({
      type: 'message',
      channel: 'C1',
      channel_type: 'channel',
      user: 'U1',
      text: `<@${fake.botUserId}> deploy failed on the canary after the schema change`,
      ts: '503.0001',
    });
    await fake.waitForCall('chat.postMessage', (call) => call.args.thread_ts === '503.0001');
    await fake.deliver({
      type: 'message',
      channel: 'D2',
      channel_type: 'im',
      user: 'U2',
      text: 'hi',
      ts: '7.1',
    });
    await fake.waitForCall('chat.postMessage', (call) => call.args.channel === 'D2');

    // The names arrive in the background: the list answers them once they are kept.
    const listed = await pollUntil(
      'the titled sessions',
      async () => {
        const { body } = await running.request('GET', '/api/sessions?channel=slack');
        const page = body as SessionPage;
        const thread = page.sessions.find((session) => session.key === THREAD_KEY);
        const direct = page.sessions.find((session) => session.key === DIRECT_KEY);
        return thread?.title?.startsWith('#ops') && direct?.title?.startsWith('Bo') ? page : undefined;
      },
      { timeoutMs: 10_000 },
    );
    const title = (key: string) => listed.sessions.find((session) => session.key === key)?.title;
    expect(title(THREAD_KEY)).toBe('#ops — deploy failed on the canary after…');
    expect(title(DIRECT_KEY)).toBe('Bo — hi');

    const transcript = await running.request(
      'GET',
      `/api/sessions/${encodeURIComponent(THREAD_KEY)}/transcript`,
    );
    const page = transcript.body as TranscriptPage;
    expect(page.summary?.title).toBe('#ops — deploy failed on the canary after…');
    expect(page.entries.find((entry) => entry.role === 'user')?.senderId).toBe('slack:U1');
    expect(page.names).toEqual({ 'slack:U1': 'Ann Lee' });
  });
});
