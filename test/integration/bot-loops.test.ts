import { describe, expect, it } from 'vitest';
import { startDiscordForTest, startGatewayForTest, startSlackForTest } from '../helpers/channels.js';
import type { TestGateway } from '../helpers/gateway.js';
import { pollUntil } from '../helpers/process.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * With `allowBots`, two bots cannot talk to each other forever: the gateway (the real Bolt and
 * discord.js against the fakes) answers at most `maxBotTurns` (3) bot messages in a row in one
 * thread, never a bot's reply to its own message, and a Discord reply ping is not a mention.
 * The other bot is played by the test: it answers every reply of ours.
 */

const GUILD = '900000000000000601';
const CHANNEL = '910000000000000601';
const ALICE = '930000000000000601';
const OTHER_BOT = '940000000000000601';
const DISCORD_TOKEN = 'fake-discord-loops-token';

const cleanups = cleanupAfterEach();

const logged = (running: TestGateway, text: string) =>
  running.logLines.filter((line) => line.includes(text)).length;

async function slackGateway() {
  const slack = await startSlackForTest(cleanups);
  const gateway = await startGatewayForTest(cleanups, {
    config: {
      channels: {
        slack: { botToken: 'xoxb-loops', appToken: 'xapp-loops', apiUrl: slack.apiUrl, allowBots: true },
      },
    },
  });
  await slack.connected();
  return { slack, gateway };
}

/** The other Slack bot's message in channel C1. */
const otherBot = (ts: string, extra: Record<string, unknown> = {}) => ({
  type: 'message',
  channel: 'C1',
  channel_type: 'channel',
  user: 'UOTHER',
  bot_id: 'BOTHER',
  text: '<@UBOT> /whoami',
  ts,
  ...extra,
});

describe('two bots', () => {
  it('Slack: a bot answering every reply gets three answers in its thread, then none until a person writes', async () => {
    const { slack, gateway } = await slackGateway();
    const repliesIn = (thread: string) =>
      slack.callsTo('chat.postMessage').filter((call) => call.args.thread_ts === thread);
    await slack.deliver(otherBot('80.1'));
    for (let round = 1; round <= 3; round += 1) {
      await pollUntil(`our reply ${round}`, () => repliesIn('80.1').length >= round);
      // The other bot answers our reply, in the thread, mentioning us again.
      await slack.deliver(otherBot(`80.${round + 1}`, { thread_ts: '80.1' }));
    }
    await pollUntil('the loop stopped', () => logged(gateway, 'bot turns in a row') >= 1);
    expect(repliesIn('80.1')).toHaveLength(3);

    // A person writing in the thread is answered and starts the count again.
    await slack.deliver({ ...otherBot('80.9', { thread_ts: '80.1' }), user: 'U1', bot_id: undefined });
    await pollUntil('the answer to the person', () => repliesIn('80.1').length >= 4);
    await slack.deliver(otherBot('80.10', { thread_ts: '80.1' }));
    await pollUntil('the bot heard again', () => repliesIn('80.1').length >= 5);
  });

  it("Slack: a bot's reply in a thread under the bot's own message is not answered", async () => {
    const { slack, gateway } = await slackGateway();
    await slack.deliver(otherBot('81.2', { thread_ts: '81.1', parent_user_id: 'UBOT' }));
    await pollUntil(
      'the reply refused',
      () => logged(gateway, "a bot's reply to the bot's own message") >= 1,
    );
    expect(slack.callsTo('chat.postMessage')).toEqual([]);
  });

  it('Discord: a bot posting after each of our replies gets three answers, and its replies to us none', async () => {
    const discord = await startDiscordForTest(cleanups, {
      token: DISCORD_TOKEN,
      guilds: [{ id: GUILD, channels: [CHANNEL] }],
    });
    const fake = discord;
    const gateway = await startGatewayForTest(cleanups, {
      config: {
        channels: {
          discord: {
            token: DISCORD_TOKEN,
            apiBase: fake.apiBase,
            allowBots: true,
            requireMention: false,
          },
        },
      },
    });
    const running = gateway;
    const say = (extra: { replyTo?: string; authorId?: string; authorBot?: boolean } = {}) =>
      fake.dispatchMessage({
        channelId: CHANNEL,
        guildId: GUILD,
        authorId: OTHER_BOT,
        authorBot: true,
        content: '/whoami',
        ...extra,
      });
    say();
    for (let round = 1; round <= 3; round += 1) {
      await pollUntil(`our reply ${round}`, () => fake.posted.length >= round);
      say();
    }
    await pollUntil('the loop stopped', () => logged(running, 'bot turns in a row') >= 1);
    expect(fake.posted).toHaveLength(3);

    // A person resets the count; a bot's reply (by reference) to our answer is still not answered.
    say({ authorId: ALICE, authorBot: false });
    await pollUntil('the answer to the person', () => fake.posted.length >= 4);
    const ours = await pollUntil('our message id', () => fake.lastPostId());
    say({ replyTo: ours });
    await pollUntil(
      'the reply refused',
      () => logged(running, "a bot's reply to the bot's own message") >= 1,
    );
    expect(fake.posted).toHaveLength(4);
  });
});
