import { describe, expect, it } from 'vitest';
import { startDiscordForTest, startGatewayForTest, startSlackForTest } from '../helpers/channels.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * A gateway whose Slack or Discord token is refused: it says why in its log (the platform's
 * reason, not the token) and keeps serving the other channels.
 */

const cleanups = cleanupAfterEach();

/** The `msg` of every error line the gateway logged for `channel`. */
function channelErrors(lines: string[], channel: string): string[] {
  return lines
    .map((line) => JSON.parse(line) as { msg?: string; channel?: string; level?: number })
    .filter((line) => line.channel === channel && (line.level ?? 0) >= 50)
    .map((line) => line.msg ?? '');
}

describe('refused channel credentials at start', () => {
  it('logs why Slack refused the bot token and still answers web chat', async () => {
    const slack = await startSlackForTest(cleanups, { botToken: 'xoxb-right', appToken: 'xapp-right' });
    const gateway = await startGatewayForTest(cleanups, {
      config: {
        channels: {
          slack: { botToken: 'xoxb-wrong-5555', appToken: 'xapp-right', apiUrl: slack.apiUrl },
        },
      },
    });
    // A refused token is a config problem: named as such, retried only slowly (refusedDelayMs).
    expect(channelErrors(gateway.logLines, 'slack')).toContainEqual(
      expect.stringMatching(
        /^slack refused the credentials \(An API error occurred: invalid_auth\); fix channels\.slack \(`switchboard doctor` checks it\); trying again in \d+ min, the other channels keep running$/,
      ),
    );
    expect(gateway.logLines.join('\n')).not.toContain('xoxb-wrong-5555');
    // Refused at auth.test: Socket Mode was never opened.
    expect(slack.callsTo('apps.connections.open')).toEqual([]);
    expect(slack.sockets).toBe(0);
    expect((await gateway.send('/whoami')).body.replies[0].text).toContain('webchat:local');
  }, 30_000);

  it('logs why Discord refused the token and still answers web chat', async () => {
    const discord = await startDiscordForTest(cleanups, { token: 'discord-right', guilds: [] });
    const gateway = await startGatewayForTest(cleanups, {
      config: { channels: { discord: { token: 'discord-wrong-6666', apiBase: discord.apiBase } } },
    });
    expect(channelErrors(gateway.logLines, 'discord')).toContainEqual(
      expect.stringMatching(
        /^discord refused the credentials \(An invalid token was provided\); fix channels\.discord \(`switchboard doctor` checks it\); trying again in \d+ min, the other channels keep running$/,
      ),
    );
    expect((await fetch(`${gateway.url}/healthz`).then((response) => response.json())) as unknown).toEqual({
      status: 'degraded',
      mode: 'normal',
      channels: { webchat: 'connected', discord: 'refused' },
      down: ['discord'],
    });
    expect(gateway.logLines.join('\n')).not.toContain('discord-wrong-6666');
    expect(discord.connections()).toBe(0);
    expect((await gateway.send('/whoami')).body.replies[0].text).toContain('webchat:local');
  }, 30_000);
});
