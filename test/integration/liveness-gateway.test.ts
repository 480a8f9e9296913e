import { describe, expect, it } from 'vitest';
import {
  askOnDiscord,
  askOnSlack,
  startDiscordForTest,
  startGatewayForTest,
  startSlackForTest,
} from '../helpers/channels.js';
import type { TestGateway } from '../helpers/gateway.js';
import { parseExposition } from '../helpers/prometheus.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * Deaf sockets (issue 32 item 4) seen from outside: a whole gateway on the real Bolt and
 * discord.js, against a fake Slack and a fake Discord whose connections stay open (pings and
 * heartbeats answered) and drop every event while the platform's history still shows the
 * messages. The operator sees the channel `deaf` in `/readyz` and on the Health page
 * (`/api/status`, with the evidence) while it is opened again, one log line naming the platform
 * and the evidence, and `switchboard_channel_deaf_reconnects_total{channel}` counting it; the
 * missed message is answered and the new connection hears. A quiet place is never flagged.
 */

const LIVENESS = { deafAfterMs: 1000, checkIntervalMs: 250 };
/** The longest a deaf connection may go unnoticed: silent for deafAfterMs, then two checks agree. */
const NOTICED_WITHIN_MS = LIVENESS.deafAfterMs + 2 * LIVENESS.checkIntervalMs;
/** What a loaded machine adds to that (timers late, the libraries' start). */
const SLACK_MS = 10_000;
const RECONNECT = { initialDelayMs: 20, maxDelayMs: 200 };
const TOKEN = 'fake-discord-liveness-token';
const GUILD = '900000000000000331';
const CHANNEL = '910000000000000331';
const PLACE = { guildId: GUILD, channelId: CHANNEL, authorId: '930000000000000331' };

const cleanups = cleanupAfterEach();

/** A Slack message `ts` of now (the liveness check only counts messages after its start). */
let sequence = 0;
const nowTs = () => `${(Date.now() / 1000).toFixed(3)}${String(++sequence % 1000).padStart(3, '0')}`;

async function setup() {
  const slack = await startSlackForTest(cleanups);
  const discord = await startDiscordForTest(cleanups, {
    token: TOKEN,
    guilds: [{ id: GUILD, channels: [CHANNEL] }],
  });
  const gateway = await startGatewayForTest(cleanups, {
    config: {
      channels: {
        slack: {
          botToken: 'xoxb-liveness-secret',
          appToken: 'xapp-liveness-secret',
          apiUrl: slack.apiUrl,
          reconnect: RECONNECT,
          liveness: LIVENESS,
        },
        discord: { token: TOKEN, apiBase: discord.apiBase, reconnect: RECONNECT, liveness: LIVENESS },
      },
    },
  });
  await slack.connected();
  // Each platform hears once: the check then knows where the bot listens.
  await askOnSlack(slack, nowTs(), '/whoami');
  await askOnDiscord(discord, PLACE, '/whoami');
  await expect.poll(async () => (await readiness(gateway)).status).toBe(200);
  return { slack, discord, gateway };
}

async function readiness(gateway: TestGateway): Promise<{ status: number; body: any; text: string }> {
  const response = await fetch(`${gateway.url}/readyz`, { headers: { connection: 'close' } });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text), text };
}

async function channelStatus(gateway: TestGateway, name: string) {
  const status = await gateway.request('GET', '/api/status');
  expect(status.status).toBe(200);
  return (status.body.channels as Array<{ name: string }>).find((channel) => channel.name === name) as any;
}

async function deafReconnects(gateway: TestGateway, channel: string): Promise<number | undefined> {
  const metrics = await gateway.request('GET', '/metrics');
  return parseExposition(metrics.body).value('switchboard_channel_deaf_reconnects_total', { channel });
}

/** The log lines (JSON) at warn or above that say a connection is deaf. */
const deafLines = (gateway: TestGateway) =>
  gateway.logLines.filter((line) => /deaf/.test(line) && /"level":(40|50)/.test(line));

describe('a deaf connection, seen from outside', () => {
  it('Slack: found, shown deaf in /readyz and on the Health page, counted, opened again; the missed message is answered and the new connection hears', async () => {
    const { slack, gateway } = await setup();
    // The new connection waits, so the deaf state can be seen while it lasts.
    const release = slack.hold('apps.connections.open');
    cleanups.push(release);
    slack.deafen();
    const missedTs = nowTs();
    const missed = askOnSlack(slack, missedTs, '/whoami while deaf', NOTICED_WITHIN_MS + SLACK_MS * 2);
    missed.catch(() => {}); // awaited below; a failure before that must not go unhandled

    await expect
      .poll(async () => (await readiness(gateway)).body.reasons, { timeout: NOTICED_WITHIN_MS + SLACK_MS })
      .toContainEqual({ component: 'slack', state: 'deaf' });
    const ready = await readiness(gateway);
    expect(ready.status).toBe(503);
    // Public: states only, never the evidence or a token.
    for (const hidden of [missedTs, 'C1', 'liveness-secret']) expect(ready.text).not.toContain(hidden);
    const shown = await channelStatus(gateway, 'slack');
    expect(shown).toMatchObject({ state: 'deaf', deafReconnects: 1 });
    expect(shown.lastDeaf.reason).toContain(`Slack shows a message in C1 (${missedTs})`);
    // One line says it, naming the platform and the evidence.
    expect(deafLines(gateway)).toHaveLength(1);
    expect(deafLines(gateway)[0]).toMatch(new RegExp(`slack.*C1 \\(${missedTs.replace('.', '\\.')}\\)`));

    release();
    await missed;
    await expect.poll(async () => (await readiness(gateway)).status, { timeout: SLACK_MS }).toBe(200);
    expect(slack.callsTo('apps.connections.open')).toHaveLength(2);
    expect(await deafReconnects(gateway, 'slack')).toBe(1);
    expect(await deafReconnects(gateway, 'discord')).toBe(0);
    // The new connection hears.
    await askOnSlack(slack, nowTs(), '/whoami after');
    expect((await channelStatus(gateway, 'slack')).state).toBe('connected');
  }, 90_000);

  it('Discord: found, shown deaf in /readyz and on the Health page, counted, connected anew; the missed message is answered and the new connection hears', async () => {
    const { discord, gateway } = await setup();
    const release = discord.holdConnects();
    cleanups.push(release);
    discord.deafen();
    const missed = askOnDiscord(discord, PLACE, '/whoami while deaf');
    missed.catch(() => {}); // awaited below; a failure before that must not go unhandled

    await expect
      .poll(async () => (await readiness(gateway)).body.reasons, { timeout: NOTICED_WITHIN_MS + SLACK_MS })
      .toContainEqual({ component: 'discord', state: 'deaf' });
    expect((await readiness(gateway)).text).not.toContain(CHANNEL);
    const shown = await channelStatus(gateway, 'discord');
    expect(shown).toMatchObject({ state: 'deaf', deafReconnects: 1 });
    expect(shown.lastDeaf.reason).toContain(`Discord shows a message in ${CHANNEL}`);
    expect(deafLines(gateway)).toHaveLength(1);
    expect(deafLines(gateway)[0]).toMatch(new RegExp(`discord.*${CHANNEL}`));

    release();
    // The new connection's catch-up reads the missed message.
    await missed;
    await expect.poll(async () => (await readiness(gateway)).status, { timeout: SLACK_MS }).toBe(200);
    expect(discord.identifies()).toBe(2);
    expect(await deafReconnects(gateway, 'discord')).toBe(1);
    expect(await deafReconnects(gateway, 'slack')).toBe(0);
    await askOnDiscord(discord, PLACE, '/whoami after');
  }, 90_000);

  it('a quiet workspace and server (deaf, but nobody writes) are not flagged over several checks', async () => {
    const { slack, discord, gateway } = await setup();
    slack.deafen();
    discord.deafen();
    const slackReads = slack.callsTo('conversations.history').length;
    const discordReads = discord.historyReads.length;
    // Several check periods each: the platforms were asked, and showed nothing missed.
    await expect
      .poll(
        () => [
          slack.callsTo('conversations.history').length - slackReads >= 6,
          discord.historyReads.length - discordReads >= 6,
        ],
        { timeout: NOTICED_WITHIN_MS * 6 + SLACK_MS },
      )
      .toEqual([true, true]);
    const ready = await readiness(gateway);
    expect(ready.status).toBe(200);
    expect(ready.body.channels).toMatchObject({ slack: 'connected', discord: 'connected' });
    expect(slack.callsTo('apps.connections.open')).toHaveLength(1);
    expect(discord.identifies()).toBe(1);
    expect(await deafReconnects(gateway, 'slack')).toBe(0);
    expect(await deafReconnects(gateway, 'discord')).toBe(0);
    expect(deafLines(gateway)).toEqual([]);
  }, 90_000);
});
