// First, as in a process where Slack's adapter loads before Discord's: @slack/socket-mode's undici 7
// then installs the process's global dispatcher, which @discordjs/rest's undici 6 `request` uses.
import '../../src/surfaces/channels/slack/index.js';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startDiscordForTest, startGatewayForTest, startSlackForTest } from '../helpers/channels.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * A gateway with Slack and Discord both configured (so both SDKs, Bolt and discord.js, are loaded
 * in one process) attaches files on both: chat.attach through the real discord.js (a multipart
 * post, undici's body code) and the real Bolt (files.uploadV2) against the fakes.
 */

const TOKEN = 'fake-discord-both-token';
const GUILD = '900000000000000401';
const CHANNEL = '910000000000000401';
const ALICE = '930000000000000401';
const cleanups = cleanupAfterEach();

describe('a gateway with Slack and Discord', () => {
  it('attaches a workspace file on Discord and on Slack', async () => {
    const discord = await startDiscordForTest(cleanups, {
      token: TOKEN,
      guilds: [{ id: GUILD, channels: [CHANNEL] }],
    });
    const slack = await startSlackForTest(cleanups, { echoPosts: true });
    const model = await startFakeOpenAIServer();
    cleanups.push(() => model.close());
    const gateway = await startGatewayForTest(cleanups, {
      config: {
        channels: {
          discord: { token: TOKEN, apiBase: discord.apiBase, stream: false },
          slack: { botToken: 'xoxb-both', appToken: 'xapp-both', apiUrl: slack.apiUrl, stream: false },
        },
        models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-both-01' } },
        agents: { main: { model: 'fake' } },
      },
    });
    await slack.connected();
    const workspace = path.join(gateway.dir, 'data/workspaces/main');
    await mkdir(workspace, { recursive: true });
    await writeFile(path.join(workspace, 'plot.csv'), 'day,load\n1,0.5\n');

    model.push({
      toolCalls: [{ name: 'chat.attach', arguments: { path: 'plot.csv', comment: 'on discord' } }],
    });
    model.push({ text: 'attached on discord' });
    discord.dispatchMessage({
      channelId: CHANNEL,
      guildId: GUILD,
      authorId: ALICE,
      content: `<@${discord.botId}> the data please`,
      mentions: [discord.botId],
    });
    await expect
      .poll(() => discord.posted.map((post) => post.content), { timeout: 15_000 })
      .toContain('attached on discord');
    const tool = model.requests[1]?.messages.find((message: any) => message.role === 'tool');
    // The whole result on a failure: its error names what broke.
    expect(JSON.parse(tool.content)).toEqual(expect.objectContaining({ ok: true, name: 'plot.csv' }));
    const withFile = discord.posted.find((post) => post.files !== undefined);
    expect(withFile?.content).toBe('on discord');
    expect(withFile?.files?.map((file) => [file.name, file.data.toString('utf8')])).toEqual([
      ['plot.csv', 'day,load\n1,0.5\n'],
    ]);

    model.push({
      toolCalls: [{ name: 'chat.attach', arguments: { path: 'plot.csv', comment: 'on slack' } }],
    });
    model.push({ text: 'attached on slack' });
    await slack.deliver({
      type: 'message',
      channel: 'C1',
      channel_type: 'channel',
      user: 'U1',
      text: '<@UBOT> the data please',
      ts: '60.1',
    });
    await slack.waitForCall('chat.postMessage', (call) => call.args.text === 'attached on slack', 15_000);
    expect(slack.callsTo('files.completeUploadExternal')[0]?.args).toMatchObject({
      channel_id: 'C1',
      thread_ts: '60.1',
      initial_comment: 'on slack',
    });
    const [, upload] = [...slack.uploads.entries()][0] ?? [];
    expect(upload?.body.toString('utf8')).toContain('day,load');
  }, 60_000);
});
