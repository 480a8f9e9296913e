import { describe, expect, it } from 'vitest';
import type { FakeDiscord } from '../fakes/fake-discord.js';
import { eventCallback, postSignedEvent } from '../fakes/fake-slack.js';
import { startDiscordForTest, startGatewayForTest, startSlackForTest } from '../helpers/channels.js';
import { pollUntil } from '../helpers/process.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * Channels that could not start recover by themselves: the real Bolt and discord.js against
 * fakes that start down and come up later. `/healthz` (alive) and `/readyz` (every channel
 * connected) say which channel is down meanwhile, without authentication and without secrets.
 */

const GUILD = '900000000000000401';
const CHANNEL = '910000000000000401';
const ALICE = '930000000000000401';
const DISCORD_TOKEN = 'fake-discord-recover-token';
/** Quick retries, so a test waits for the fake coming up rather than for a backoff. */
const RECONNECT = { initialDelayMs: 20, maxDelayMs: 100 };

const cleanups = cleanupAfterEach();

/** An unauthenticated GET (health endpoints need no token). */
async function getPublic(url: string): Promise<{ status: number; body: any; text: string }> {
  const response = await fetch(url, { headers: { connection: 'close' } });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text), text };
}

/** A fake Discord (down at first when `down`) and a gateway connected to it with quick retries. */
async function startDiscordGateway(down = false) {
  const discord = await startDiscordForTest(cleanups, {
    token: DISCORD_TOKEN,
    guilds: [{ id: GUILD, channels: [CHANNEL] }],
    down,
  });
  const gateway = await startGatewayForTest(cleanups, {
    config: {
      channels: { discord: { token: DISCORD_TOKEN, apiBase: discord.apiBase, reconnect: RECONNECT } },
    },
  });
  return { discord, gateway };
}

/** Alice asks the bot `/whoami` on Discord; resolves once its reply is posted. */
async function whoamiOnDiscord(discord: FakeDiscord): Promise<void> {
  const id = discord.dispatchMessage({
    channelId: CHANNEL,
    guildId: GUILD,
    authorId: ALICE,
    content: `<@${discord.botId}> /whoami`,
    mentions: [discord.botId],
  });
  await pollUntil('the Discord reply', () => discord.posted.find((post) => post.replyTo === id));
}

describe('a channel that could not start', () => {
  it('Slack down at start: /healthz degraded naming slack, retried until it connects, then answers', async () => {
    const slack = await startSlackForTest(cleanups, { down: true, echoPosts: true });
    const gateway = await startGatewayForTest(cleanups, {
      config: {
        channels: {
          slack: {
            botToken: 'xoxb-recover-secret',
            appToken: 'xapp-recover-secret',
            apiUrl: slack.apiUrl,
            reconnect: RECONNECT,
          },
        },
      },
    });
    const down = await getPublic(`${gateway.url}/healthz`);
    expect(down.status).toBe(200);
    expect(down.body).toMatchObject({ status: 'degraded', down: ['slack'] });
    expect(down.body.channels.slack).toMatch(/^(connecting|retrying)$/);
    expect(down.body.channels.webchat).toBe('connected');
    expect(down.text).not.toContain('recover-secret');
    expect(down.text).not.toContain(slack.apiUrl);
    const notReady = await getPublic(`${gateway.url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(notReady.body).toMatchObject({ ready: false, down: ['slack'] });
    // The web chat runs meanwhile.
    expect((await gateway.send('/whoami')).body.replies[0].text).toContain('webchat:local');

    await slack.comeUp();
    await slack.connected();
    await expect
      .poll(async () => (await getPublic(`${gateway.url}/healthz`)).body, { timeout: 10_000 })
      .toEqual({
        status: 'ok',
        mode: 'normal',
        channels: { webchat: 'connected', slack: 'connected' },
        down: [],
      });
    expect((await getPublic(`${gateway.url}/readyz`)).status).toBe(200);
    await slack.deliver({
      type: 'message',
      channel: 'C1',
      channel_type: 'channel',
      user: 'U1',
      text: `<@${slack.botUserId}> /whoami`,
      ts: '50.1',
    });
    const reply = await slack.waitForCall('chat.postMessage', (call) => call.args.thread_ts === '50.1');
    expect(reply.args.text).toBe('You are slack:U1 (not an owner).');
    expect(gateway.logLines.some((line) => line.includes('slack connected after'))).toBe(true);
  });

  it('Slack HTTP mode down at start: events are answered 503 (Slack delivers again) until it connects', async () => {
    const slack = await startSlackForTest(cleanups, { down: true });
    const secret = 'recover-signing-secret';
    const gateway = await startGatewayForTest(cleanups, {
      config: {
        channels: {
          slack: {
            mode: 'http',
            botToken: 'xoxb-http',
            signingSecret: secret,
            apiUrl: slack.apiUrl,
            reconnect: RECONNECT,
          },
        },
      },
    });
    const event = (ts: string) =>
      eventCallback(
        { type: 'message', channel: 'C1', channel_type: 'channel', user: 'U1', text: '<@UBOT> /whoami', ts },
        `Ev${ts}`,
      );
    expect(await postSignedEvent(`${gateway.url}/slack/events`, event('60.1'), secret)).toBe(503);
    await slack.comeUp();
    await expect
      .poll(async () => (await getPublic(`${gateway.url}/healthz`)).body.status, { timeout: 10_000 })
      .toBe('ok');
    expect(await postSignedEvent(`${gateway.url}/slack/events`, event('60.1'), secret, { retryNum: 1 })).toBe(
      200,
    );
    await slack.waitForCall('chat.postMessage', (call) => call.args.thread_ts === '60.1');
  });

  it('Discord down at start: retried until it connects, then answers', async () => {
    const { discord, gateway } = await startDiscordGateway(true);
    const down = await getPublic(`${gateway.url}/healthz`);
    expect(down.body).toMatchObject({ status: 'degraded', down: ['discord'] });
    expect(down.text).not.toContain(DISCORD_TOKEN);

    await discord.comeUp();
    await expect
      .poll(async () => (await getPublic(`${gateway.url}/healthz`)).body.status, { timeout: 15_000 })
      .toBe('ok');
    await whoamiOnDiscord(discord);
    expect(discord.connections()).toBe(1);
  }, 30_000);

  it('a refused Slack token is named as refused in /healthz and logged as a config problem', async () => {
    const slack = await startSlackForTest(cleanups, { botToken: 'xoxb-the-right-one' });
    const gateway = await startGatewayForTest(cleanups, {
      config: {
        channels: {
          slack: {
            botToken: 'xoxb-a-wrong-secret',
            appToken: 'xapp-any',
            apiUrl: slack.apiUrl,
            reconnect: RECONNECT,
          },
        },
      },
    });
    const health = await getPublic(`${gateway.url}/healthz`);
    expect(health.body).toMatchObject({
      status: 'degraded',
      down: ['slack'],
      channels: { slack: 'refused' },
    });
    expect(health.text).not.toContain('wrong-secret');
    expect(gateway.logLines.some((line) => line.includes('slack refused the credentials'))).toBe(true);
  });
});

describe('a channel that loses its platform after starting', () => {
  it('Slack: down for a while, named in /healthz meanwhile, then connected and answering again', async () => {
    const slack = await startSlackForTest(cleanups);
    const gateway = await startGatewayForTest(cleanups, {
      config: {
        channels: {
          slack: { botToken: 'xoxb-lost', appToken: 'xapp-lost', apiUrl: slack.apiUrl, reconnect: RECONNECT },
        },
      },
    });
    await slack.connected();
    await slack.goDown();
    await expect
      .poll(async () => (await getPublic(`${gateway.url}/healthz`)).body.down, { timeout: 15_000 })
      .toEqual(['slack']);
    await slack.comeUp();
    await expect
      .poll(async () => (await getPublic(`${gateway.url}/healthz`)).body.status, { timeout: 30_000 })
      .toBe('ok');
    await slack.connected();
    await slack.deliver({
      type: 'message',
      channel: 'C1',
      channel_type: 'channel',
      user: 'U1',
      text: `<@${slack.botUserId}> /whoami`,
      ts: '55.1',
    });
    await slack.waitForCall('chat.postMessage', (call) => call.args.thread_ts === '55.1', 10_000);
  }, 60_000);

  it('Discord: down for a while, named in /healthz meanwhile, then connected and answering again', async () => {
    const { discord, gateway } = await startDiscordGateway();
    await discord.goDown();
    await expect
      .poll(async () => (await getPublic(`${gateway.url}/healthz`)).body.down, { timeout: 15_000 })
      .toEqual(['discord']);
    await discord.comeUp();
    await expect
      .poll(async () => (await getPublic(`${gateway.url}/healthz`)).body.status, { timeout: 30_000 })
      .toBe('ok');
    await whoamiOnDiscord(discord);
  }, 60_000);

  it('Discord: a connection closed for good (discord.js will not reconnect) is started again', async () => {
    const { discord, gateway } = await startDiscordGateway();
    // 4014 (disallowed intents) is one of the codes after which discord.js gives up.
    discord.closeConnections(4014);
    await pollUntil('the loss noticed', () =>
      gateway.logLines.some((line) => line.includes('discord lost its connection for good')),
    );
    await expect
      .poll(async () => (await getPublic(`${gateway.url}/healthz`)).body.status, { timeout: 15_000 })
      .toBe('ok');
    await whoamiOnDiscord(discord);
    expect(discord.connections()).toBe(1);
  }, 30_000);
});
