import { describe, expect, it } from 'vitest';
import {
  startDiscordForTest,
  startGatewayForTest,
  startSlackForTest,
  whoamiOnBoth,
} from '../helpers/channels.js';
import { activeResources } from '../helpers/resources.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * Slack and Discord across restarts: each restart stops both adapters and starts them again on
 * the new config. After ten, exactly one connection per platform is open and this process holds
 * the same sockets, timers and file descriptors as before the first.
 */

const TOKEN = 'fake-discord-lifecycle-token';
const GUILD = '900000000000000301';
const CHANNEL = '910000000000000301';
const PLACE = { guildId: GUILD, channelId: CHANNEL, authorId: '930000000000000301' };

const cleanups = cleanupAfterEach();

describe('Slack and Discord across restarts', () => {
  it('ten restarts reconnect both, answer on both, and leak no sockets, timers or descriptors', async () => {
    const slack = await startSlackForTest(cleanups);
    const discord = await startDiscordForTest(cleanups, {
      token: TOKEN,
      guilds: [{ id: GUILD, channels: [CHANNEL] }],
    });
    const gateway = await startGatewayForTest(cleanups, {
      config: {
        channels: {
          slack: { botToken: 'xoxb-lifecycle', appToken: 'xapp-lifecycle', apiUrl: slack.apiUrl },
          discord: { token: TOKEN, apiBase: discord.apiBase },
        },
      },
    });
    await slack.connected();
    await whoamiOnBoth(slack, discord, PLACE, 0);
    // Keep-alive sockets of the test's own requests and the libraries' first calls settle first.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const before = activeResources();

    for (let restart = 1; restart <= 10; restart += 1) {
      await gateway.restart();
      expect(gateway.host.restarts).toBe(restart);
      await expect.poll(() => [slack?.sockets, discord?.connections()], { timeout: 10_000 }).toEqual([1, 1]);
      await whoamiOnBoth(slack, discord, PLACE, restart);
    }

    expect(slack.callsTo('apps.connections.open')).toHaveLength(11);
    // Each message was answered once, on its own route.
    expect(slack.callsTo('chat.postMessage')).toHaveLength(11);
    expect(discord.posted).toHaveLength(11);
    // Closed sockets and cleared timers are released over the next turns of the event loop, and
    // pooled HTTP connections when their keep-alive ends. The baseline may hold a few such pooled
    // connections too, so the check is "no more of any kind than before": one leak per restart
    // would leave ten more.
    const grown = () => {
      const after = activeResources();
      return Object.keys({ ...before, ...after }).filter((type) => (after[type] ?? 0) > (before[type] ?? 0));
    };
    // Polled by hand: expect.poll's own timers would be counted.
    let leaked = grown();
    for (let attempt = 0; attempt < 60 && leaked.length > 0; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      leaked = grown();
    }
    expect(leaked).toEqual([]);
  }, 90_000);
});
