import { describe, expect, it } from 'vitest';
import { slashCommand } from '../fakes/fake-slack-commands.js';
import { startDiscordForTest, startGatewayForTest, startSlackForTest } from '../helpers/channels.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * Native commands through the whole gateway: the gateway hands the router's command table to
 * Discord (registered at start) and Slack's slash command reaches the router, answered once.
 */

const TOKEN = 'fake-discord-native-token';
const GUILD = '900000000000000401';
const CHANNEL = '910000000000000401';
const ALICE = '930000000000000401';

const cleanups = cleanupAfterEach();

describe('native commands through the gateway', () => {
  it('registers the commands on Discord and answers Discord /whoami and Slack /switchboard whoami', async () => {
    const discord = await startDiscordForTest(cleanups, {
      token: TOKEN,
      guilds: [{ id: GUILD, channels: [CHANNEL] }],
    });
    const slack = await startSlackForTest(cleanups);
    await startGatewayForTest(cleanups, {
      config: {
        owners: [`discord:${ALICE}`, 'slack:U7'],
        channels: {
          discord: { token: TOKEN, apiBase: discord.apiBase, guilds: [GUILD] },
          slack: { botToken: 'xoxb-native', appToken: 'xapp-native', apiUrl: slack.apiUrl },
        },
      },
    });
    await expect
      .poll(() => discord.registrations.map((entry) => entry.scope), { timeout: 10_000 })
      .toEqual([GUILD]);
    const names = discord.registrations[0]?.commands.map((command) => command.name);
    expect(names).toEqual(expect.arrayContaining(['status', 'whoami', 'config', 'subagents']));
    const id = discord.runCommand({ name: 'whoami', userId: ALICE, channelId: CHANNEL });
    await expect
      .poll(() => discord.commandRecords.find((entry) => entry.interactionId === id && entry.kind === 'edit'))
      .toMatchObject({ content: `You are discord:${ALICE} (owner).` });
    await slack.connected();
    await slack.command(slashCommand(slack, { user: 'U7', channel: 'C7', text: 'whoami' }));
    const post = await slack.waitForCall('chat.postMessage');
    expect(post.args).toMatchObject({ channel: 'C7', text: 'You are slack:U7 (owner).' });
    // Answered once: the router did not deliver it by route as well (that would come first). A
    // second command's answer comes after the first one's whole answer.
    await slack.command(slashCommand(slack, { user: 'U7', channel: 'C7', text: 'status' }));
    await slack.waitForCall('chat.postMessage', (call) => call.args.text?.startsWith('Agent:') === true);
    expect(slack.callsTo('chat.postMessage').map((call) => call.args.text?.split('\n')[0])).toEqual([
      'You are slack:U7 (owner).',
      'Agent: main',
    ]);
    expect(discord.posted).toEqual([]);
  });
});
