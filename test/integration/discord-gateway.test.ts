import { describe, expect, it, onTestFinished } from 'vitest';
import { REDACTED } from '../../src/base/config/index.js';
import type { FakeDiscord } from '../fakes/fake-discord.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startDiscordForTest, startGatewayForTest, startSlackForTest } from '../helpers/channels.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * Discord through the whole gateway (the real discord.js against the fake Discord), and one gateway
 * serving Discord, Slack and the web chat at once.
 */

const TOKEN = 'fake-discord-gateway-token';
const GUILD = '900000000000000101';
const CHANNEL = '910000000000000101';
const ALICE = '930000000000000101';

const cleanups = cleanupAfterEach();

async function postedText(fake: FakeDiscord, predicate: (content: string) => boolean): Promise<string> {
  await expect
    .poll(() => fake.posted.some((post) => predicate(post.content)), { timeout: 10_000 })
    .toBe(true);
  return fake.posted.find((post) => predicate(post.content))?.content ?? '';
}

describe('Discord through the gateway', () => {
  it('answers a mention as a reply, knows the owner by Discord id, next to Slack and the web chat', async () => {
    const discord = await startDiscordForTest(cleanups, {
      token: TOKEN,
      guilds: [{ id: GUILD, channels: [CHANNEL] }],
    });
    const slack = await startSlackForTest(cleanups);
    const gateway = await startGatewayForTest(cleanups, {
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
    // The other channels run beside it, each answered on its own route.
    await slack.connected();
    await slack.deliver({
      type: 'message',
      channel: 'C7',
      channel_type: 'channel',
      user: 'U7',
      text: `<@${slack.botUserId}> /whoami`,
      ts: '70.1',
    });
    const slackReply = await slack.waitForCall('chat.postMessage');
    expect(slackReply.args).toMatchObject({
      channel: 'C7',
      thread_ts: '70.1',
      text: 'You are slack:U7 (not an owner).',
    });
    expect((await gateway.send('/whoami')).body.replies[0].text).toBe('You are webchat:local (owner).');
    expect(slack.callsTo('chat.postMessage')).toHaveLength(1);
    expect(discord.posted.map((post) => post.channelId)).toEqual([CHANNEL, CHANNEL]);
  });

  it('answers /config get to an owner with secrets redacted and tells others it is for owners; posts the restart note where the owner asked', async () => {
    const discord = await startDiscordForTest(cleanups, {
      token: TOKEN,
      guilds: [{ id: GUILD, channels: [CHANNEL] }],
    });
    const gateway = await startGatewayForTest(cleanups, {
      config: {
        owners: [`discord:${ALICE}`],
        channels: { discord: { token: TOKEN, apiBase: discord.apiBase } },
      },
    });
    const fake = discord;
    const say = (authorId: string, content: string) =>
      fake.dispatchMessage({
        channelId: CHANNEL,
        guildId: GUILD,
        authorId,
        content: `<@${fake.botId}> ${content}`,
        mentions: [fake.botId],
      });

    say(ALICE, '/config get channels.discord');
    const config = await postedText(fake, (text) => text.startsWith('channels.discord:'));
    expect(config).toContain(`"token": "${REDACTED}"`);
    expect(config).toContain(`"apiBase": "${fake.apiBase}"`);
    say('930000000000000102', '/config get');
    expect(await postedText(fake, (text) => text.startsWith('/config'))).toBe(
      '/config refused: discord:930000000000000102, role member may not run /config: role member lacks it (roles.member.commands: *).',
    );
    expect(JSON.stringify(fake.posted)).not.toContain(TOKEN);

    say(ALICE, '/restart new intents');
    await postedText(fake, (text) => text.startsWith('Restarting in'));
    await expect.poll(() => gateway?.host.restarts, { timeout: 15_000 }).toBe(1);
    await postedText(fake, (text) => text === 'Gateway restarted (restart): new intents');
    expect(fake.posted.at(-1)?.channelId).toBe(CHANNEL);
    // discord.js identified again after the restart; the old connection is closed.
    await expect.poll(() => fake.connections()).toBe(1);
  });

  it('routes by bindings: a Discord channel to its agent, the rest of the guild to another', async () => {
    const other = '910000000000000109';
    const discord = await startDiscordForTest(cleanups, {
      token: TOKEN,
      guilds: [{ id: GUILD, channels: [CHANNEL, other] }],
    });
    const gateway = await startGatewayForTest(cleanups, {
      config: {
        agents: { main: {}, ops: {}, guild: {} },
        bindings: [
          { agent: 'guild', match: { channel: 'discord', guildId: GUILD } },
          { agent: 'ops', match: { channel: 'discord', guildId: GUILD, chatId: CHANNEL } },
        ],
        channels: { discord: { token: TOKEN, apiBase: discord.apiBase } },
      },
    });
    const fake = discord;
    for (const channelId of [CHANNEL, other]) {
      const id = fake.dispatchMessage({
        channelId,
        guildId: GUILD,
        authorId: ALICE,
        content: `<@${fake.botId}> status please`,
        mentions: [fake.botId],
      });
      await expect
        .poll(() => fake.posted.some((post) => post.replyTo === id), { timeout: 10_000 })
        .toBe(true);
    }
    const keys = (await gateway.request('GET', '/api/sessions')).body.sessions.map(
      (session: any) => session.key,
    );
    expect(keys).toEqual(
      expect.arrayContaining([
        `agent:ops:discord:channel:${CHANNEL}`,
        `agent:guild:discord:channel:${other}`,
      ]),
    );
  });

  it('answers a mention with the model, in a DM too, each in its own session', async () => {
    const model = await startFakeOpenAIServer();
    onTestFinished(() => model.close());
    const discord = await startDiscordForTest(cleanups, {
      token: TOKEN,
      guilds: [{ id: GUILD, channels: [CHANNEL] }],
    });
    const gateway = await startGatewayForTest(cleanups, {
      config: {
        models: {
          fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-discord-model-01' },
        },
        agents: { main: { model: 'fake' } },
        channels: { discord: { token: TOKEN, apiBase: discord.apiBase, dmPolicy: 'open' } },
      },
    });
    const fake = discord;
    model.push({ text: 'Deploys are green.' });
    const asked = fake.dispatchMessage({
      channelId: CHANNEL,
      guildId: GUILD,
      authorId: ALICE,
      content: `<@${fake.botId}> how are deploys?`,
      mentions: [fake.botId],
    });
    await postedText(fake, (text) => text === 'Deploys are green.');
    expect(fake.posted.at(-1)).toMatchObject({ channelId: CHANNEL, replyTo: asked });
    // The model saw the text without the mention.
    expect(JSON.stringify(model.requests[0]?.messages)).toContain('how are deploys?');
    expect(JSON.stringify(model.requests[0]?.messages)).not.toContain(`<@${fake.botId}>`);

    model.push({ text: 'Hello in private.' });
    const dmChannel = '940000000000000101';
    fake.dispatchMessage({ channelId: dmChannel, authorId: ALICE, content: 'hi there' });
    await postedText(fake, (text) => text === 'Hello in private.');
    expect(fake.posted.at(-1)?.channelId).toBe(dmChannel);
    const keys = (await gateway.request('GET', '/api/sessions')).body.sessions.map(
      (session: any) => session.key,
    );
    expect(keys).toEqual(
      expect.arrayContaining([`agent:main:discord:channel:${CHANNEL}`, `agent:main:discord:direct:${ALICE}`]),
    );
  });
});
