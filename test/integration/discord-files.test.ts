import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeDiscord } from '../fakes/fake-discord.js';
import { startFakeFileHost } from '../fakes/fake-file-host.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startDiscordForTest, startGatewayForTest } from '../helpers/channels.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * Attachments posted in Discord, through the whole gateway: the real discord.js against the fake
 * Discord, the attachment served by a fake CDN, the real tool loop against a fake OpenAI server.
 */

const TOKEN = 'fake-discord-files-token';
const GUILD = '900000000000000301';
const CHANNEL = '910000000000000301';
const ALICE = '930000000000000301';

const cleanups = cleanupAfterEach();

async function setup() {
  const discord = await startDiscordForTest(cleanups, {
    token: TOKEN,
    guilds: [{ id: GUILD, channels: [CHANNEL] }],
  });
  const cdn = await startFakeFileHost();
  cleanups.push(() => cdn.close());
  const model = await startFakeOpenAIServer();
  cleanups.push(() => model.close());
  const gateway = await startGatewayForTest(cleanups, {
    config: {
      channels: { discord: { token: TOKEN, apiBase: discord.apiBase } },
      models: {
        fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-discord-files' },
      },
      agents: { main: { model: 'fake' } },
    },
  });
  return { discord, cdn, model, gateway };
}

/** Resolves once one of the bot's posts reads `text` (posted, or a streamed placeholder edited to it). */
async function posted(fake: FakeDiscord, text: string): Promise<void> {
  await expect
    .poll(() => fake.posted.some((post) => fake.message(fake.idOf(post) ?? '')?.content === text), {
      timeout: 10_000,
    })
    .toBe(true);
}

describe('attachments posted in Discord', () => {
  it("saves a text attachment in its sender's upload folder and gives the model its path, not its bytes", async () => {
    const { discord, cdn, model, gateway } = await setup();
    const notes = Buffer.from('step 1: deploy\nstep 2: verify\n');
    cdn.add('notes.txt', notes, 'text/plain; charset=utf-8');
    model.push({ text: 'read it' });
    const messageId = discord.dispatchMessage({
      channelId: CHANNEL,
      guildId: GUILD,
      authorId: ALICE,
      content: `<@${discord.botId}> summarise this`,
      mentions: [discord.botId],
      attachments: [
        {
          id: '940000000000000301',
          filename: 'notes.txt',
          size: notes.byteLength,
          url: cdn.url('notes.txt'),
          proxy_url: cdn.url('notes.txt'),
          content_type: 'text/plain; charset=utf-8',
        },
      ],
    });
    await posted(discord, 'read it');

    // Saved in Alice's folder for this channel, outside the workspace; her turns here see it as /uploads/….
    const workspacePath = `/uploads/discord-${messageId}/notes.txt`;
    expect(
      await readFile(
        path.join(
          gateway.dir,
          `data/uploads/main/discord:${ALICE}/discord-${CHANNEL}`,
          workspacePath.slice('/uploads/'.length),
        ),
      ),
    ).toEqual(notes);
    // Discord's CDN addresses are signed: the bot token is never sent with a download.
    expect(cdn.downloads).toEqual([{ name: 'notes.txt', authorization: undefined }]);
    const user = model.requests[0].messages.filter((message: any) => message.role === 'user').at(-1);
    expect(user.content).toContain('summarise this');
    expect(user.content).toContain(
      `[file notes.txt (text/plain, ${notes.byteLength} bytes) saved at ${workspacePath}]`,
    );
    expect(user.content).not.toContain('step 1');
  });

  it('does not download an attachment over the size cap, and tells the model why', async () => {
    const { discord, cdn, model } = await setup();
    model.push({ text: 'too big' });
    discord.dispatchMessage({
      channelId: CHANNEL,
      guildId: GUILD,
      authorId: ALICE,
      content: `<@${discord.botId}> look`,
      mentions: [discord.botId],
      attachments: [
        {
          id: '940000000000000302',
          filename: 'huge.bin',
          size: 50 * 1_048_576,
          url: cdn.url('huge.bin'),
          proxy_url: cdn.url('huge.bin'),
        },
      ],
    });
    await posted(discord, 'too big');
    expect(cdn.downloads).toEqual([]);
    const user = model.requests[0].messages.filter((message: any) => message.role === 'user').at(-1);
    expect(user.content).toContain(
      '[file huge.bin (application/octet-stream) was not saved: larger than the 20 MB limit',
    );
  });

  it('posts a workspace file as an attachment with chat.attach', async () => {
    const { discord, model, gateway } = await setup();
    const workspace = path.join(gateway.dir, 'data/workspaces/main');
    await mkdir(workspace, { recursive: true });
    await writeFile(path.join(workspace, 'plot.csv'), 'day,load\n1,0.5\n');
    model.push({
      toolCalls: [{ name: 'chat.attach', arguments: { path: '/workspace/plot.csv', comment: 'the data' } }],
    });
    model.push({ text: 'attached' });
    discord.dispatchMessage({
      channelId: CHANNEL,
      guildId: GUILD,
      authorId: ALICE,
      content: `<@${discord.botId}> the data please`,
      mentions: [discord.botId],
    });
    await posted(discord, 'attached');
    const withFile = discord.posted.find((post) => post.files !== undefined);
    expect(withFile?.channelId).toBe(CHANNEL);
    expect(withFile?.content).toBe('the data');
    expect(withFile?.files?.map((file) => [file.name, file.data.toString('utf8')])).toEqual([
      ['plot.csv', 'day,load\n1,0.5\n'],
    ]);
  });
});
