import { describe, expect, it } from 'vitest';
import type { FakeSlack } from '../fakes/fake-slack.js';
import { startDiscordForTest, startGatewayForTest, startSlackForTest } from '../helpers/channels.js';
import type { TestGateway } from '../helpers/gateway.js';
import { pollUntil } from '../helpers/process.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * What a channel remembers lives in the store (SQLite here), so a restart forgets neither the
 * threads the bot takes part in nor the events it answered: the real Bolt and discord.js against
 * the fakes, through the whole gateway and an in-process restart.
 */

const GUILD = '900000000000000501';
const CHANNEL = '910000000000000501';
const THREAD = '920000000000000501';
const ALICE = '930000000000000501';
const DISCORD_TOKEN = 'fake-discord-memory-token';

const cleanups = cleanupAfterEach();

async function slackGateway() {
  const slack = await startSlackForTest(cleanups, { echoPosts: true });
  const gateway = await startGatewayForTest(cleanups, {
    config: {
      channels: { slack: { botToken: 'xoxb-memory', appToken: 'xapp-memory', apiUrl: slack.apiUrl } },
    },
  });
  await slack.connected();
  return { slack, gateway };
}

async function restartSlack(fake: FakeSlack, running: TestGateway) {
  await running.restart();
  await expect.poll(() => fake.sockets, { timeout: 10_000 }).toBe(1);
}

const message = (ts: string, text: string, extra: Record<string, unknown> = {}) => ({
  type: 'message',
  channel: 'C1',
  channel_type: 'channel',
  user: 'U1',
  text,
  ts,
  ...extra,
});

describe('channel memory across a restart', () => {
  it('Slack: an unmentioned reply in a thread the bot took part in before the restart is heard', async () => {
    const { slack, gateway } = await slackGateway();
    await slack.deliver(message('70.1', `<@${slack.botUserId}> /whoami`));
    await slack.waitForCall('chat.postMessage', (call) => call.args.thread_ts === '70.1');

    await restartSlack(slack, gateway);
    await slack.deliver(message('70.2', '/whoami', { thread_ts: '70.1' }));
    const replies = await pollUntil('the reply after the restart', () => {
      const found = slack.callsTo('chat.postMessage').filter((call) => call.args.thread_ts === '70.1');
      return found.length >= 2 ? found : undefined;
    });
    expect(replies).toHaveLength(2);
    expect(replies[1]?.args.text).toContain('slack:U1');
  });

  it('Slack: a retry of an event answered before the restart is not answered again', async () => {
    const { slack, gateway } = await slackGateway();
    const mention = (ts: string) => message(ts, `<@${slack.botUserId}> /whoami`);
    await slack.deliver(mention('71.1'), { eventId: 'EvAnswered' });
    await slack.deliver(mention('72.1'), { eventId: 'EvMessage' });
    await slack.waitForCall('chat.postMessage', (call) => call.args.thread_ts === '71.1');
    await slack.waitForCall('chat.postMessage', (call) => call.args.thread_ts === '72.1');

    await restartSlack(slack, gateway);
    await slack.deliver(mention('71.1'), { eventId: 'EvAnswered', retryAttempt: 1 });
    // The same message as `app_mention` (another event id) is the same message.
    await slack.deliver({ ...mention('72.1'), type: 'app_mention' }, { eventId: 'EvMention' });
    await pollUntil('both redeliveries recognized', () =>
      gateway.logLines.filter((line) => line.includes('slack event already answered')).length >= 2
        ? true
        : undefined,
    );
    const answers = (ts: string) =>
      slack.callsTo('chat.postMessage').filter((call) => call.args.thread_ts === ts).length;
    expect([answers('71.1'), answers('72.1')]).toEqual([1, 1]);
  });

  it('Discord: an unmentioned message in a thread the bot took part in before the restart is heard', async () => {
    const discord = await startDiscordForTest(cleanups, {
      token: DISCORD_TOKEN,
      guilds: [{ id: GUILD, channels: [CHANNEL], threads: [{ id: THREAD, parentId: CHANNEL }] }],
    });
    const gateway = await startGatewayForTest(cleanups, {
      config: { channels: { discord: { token: DISCORD_TOKEN, apiBase: discord.apiBase } } },
    });
    const fake = discord;
    const first = fake.dispatchMessage({
      channelId: THREAD,
      guildId: GUILD,
      authorId: ALICE,
      content: `<@${fake.botId}> /whoami`,
      mentions: [fake.botId],
    });
    await pollUntil('the first reply', () => fake.posted.find((post) => post.replyTo === first));

    await gateway.restart();
    await expect.poll(() => fake.connections(), { timeout: 10_000 }).toBe(1);
    const second = fake.dispatchMessage({
      channelId: THREAD,
      guildId: GUILD,
      authorId: ALICE,
      content: '/whoami',
    });
    const reply = await pollUntil('the reply after the restart', () =>
      fake.posted.find((post) => post.replyTo === second),
    );
    expect(reply.channelId).toBe(THREAD);
  });
});
