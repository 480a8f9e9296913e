import { afterEach, describe, expect, it } from 'vitest';
import { createFakeDiscord, type FakeDiscord } from '../fakes/fake-discord.js';
import { type FakeSlack, startFakeSlack } from '../fakes/fake-slack.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

/**
 * Discord through the whole gateway (the real discord.js against the fake Discord), and one gateway
 * serving Discord, Slack and the web chat at once.
 */

const TOKEN = 'fake-discord-gateway-token';
const GUILD = '900000000000000101';
const CHANNEL = '910000000000000101';
const ALICE = '930000000000000101';

let gateway: TestGateway | undefined;
let discord: FakeDiscord | undefined;
let slack: FakeSlack | undefined;
afterEach(async () => {
  await gateway?.dispose();
  await discord?.close();
  await slack?.close();
  gateway = undefined;
  discord = undefined;
  slack = undefined;
});

async function postedText(fake: FakeDiscord, predicate: (content: string) => boolean): Promise<string> {
  await expect
    .poll(() => fake.posted.some((post) => predicate(post.content)), { timeout: 10_000 })
    .toBe(true);
  return fake.posted.find((post) => predicate(post.content))?.content ?? '';
}

describe('Discord through the gateway', () => {
  it('answers a mention as a reply, knows the owner by Discord id, next to Slack and the web chat', async () => {
    discord = await createFakeDiscord({ token: TOKEN, guilds: [{ id: GUILD, channels: [CHANNEL] }] });
    slack = await startFakeSlack();
    gateway = await startTestGateway({
      config: {
        owners: ['webchat:local', `discord:${ALICE}`],
        channels: {
          discord: { token: TOKEN, apiBase: discord.apiBase },
          slack: { botToken: 'xoxb-together', appToken: 'xapp-together', apiUrl: slack.apiUrl },
        },
      },
    });
    const messageId = discord.dispatchMessage({
      channelId: CHANNEL,
      guildId: GUILD,
      authorId: ALICE,
      content: `<@${discord.botId}> /whoami`,
      mentions: [discord.botId],
    });
    expect(await postedText(discord, (text) => text.startsWith('You are'))).toBe(
      `You are discord:${ALICE} (owner).`,
    );
    expect(discord.posted.find((post) => post.content.startsWith('You are'))?.replyTo).toBe(messageId);

    discord.dispatchMessage({
      channelId: CHANNEL,
      guildId: GUILD,
      authorId: '930000000000000102',
      content: `<@${discord.botId}> hello`,
      mentions: [discord.botId],
    });
    expect(await postedText(discord, (text) => text.includes('No model is configured'))).toContain(
      'agent "main"',
    );
    const sessions = await gateway.request('GET', '/api/sessions');
    expect(sessions.body.sessions.map((session: any) => session.key)).toContain(
      `agent:main:discord:channel:${CHANNEL}`,
    );
    // The other channels run beside it.
    await slack.connected();
    expect((await gateway.send('/whoami')).body.replies[0].text).toBe('You are webchat:local (owner).');
  });
});
