import { describe, expect, it, onTestFinished } from 'vitest';
import type { FakeDiscord } from '../fakes/fake-discord.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startDiscordForTest, startGatewayForTest } from '../helpers/channels.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * Streaming replies on Discord through the whole gateway: the real discord.js against the fake
 * Discord, the real OpenAI client against the fake model streaming its answer slowly.
 */

const TOKEN = 'fake-discord-stream-token';
const GUILD = '900000000000000201';
const CHANNEL = '910000000000000201';
const ALICE = '930000000000000201';
/** Discord's budget (5 posts or edits per channel per 5 s) spread evenly; measured at the fake, less one request's jitter. */
const GAP_MS = 900;
const ANSWER = [
  'Deploys are **green**:',
  '',
  '```js',
  'const status = await deploys.check();',
  '```',
  '',
  'Nothing to roll back today.',
].join('\n');

const cleanups = cleanupAfterEach();

async function setup(discordConfig: Record<string, unknown> = {}) {
  const model = await startFakeOpenAIServer();
  onTestFinished(() => model.close());
  const discord = await startDiscordForTest(cleanups, {
    token: TOKEN,
    guilds: [{ id: GUILD, channels: [CHANNEL] }],
  });
  await startGatewayForTest(cleanups, {
    config: {
      models: {
        fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-discord-stream-01' },
      },
      agents: { main: { model: 'fake' } },
      channels: { discord: { token: TOKEN, apiBase: discord.apiBase, ...discordConfig } },
    },
  });
  return { model, discord };
}

const ask = (discord: FakeDiscord) =>
  discord.dispatchMessage({
    channelId: CHANNEL,
    guildId: GUILD,
    authorId: ALICE,
    content: `<@${discord.botId}> how are deploys?`,
    mentions: [discord.botId],
  });

/** The content of the bot's first post in the channel, as edited since. */
const shown = (discord: FakeDiscord) => {
  const post = discord.posted.find((candidate) => candidate.channelId === CHANNEL);
  const id = post === undefined ? undefined : discord.idOf(post);
  return id === undefined ? undefined : discord.message(id)?.content;
};

describe('streaming replies on Discord', () => {
  it('posts one placeholder as a reply, edits it as the text streams within 5 edits per 5 s, and ends with the whole answer', async () => {
    const { model, discord } = await setup();
    model.push({ text: ANSWER, chunks: 12, chunkDelayMs: 200 });
    const asked = ask(discord);
    await expect.poll(() => shown(discord), { timeout: 20_000 }).toBe(ANSWER);
    const posts = discord.posted.filter((post) => post.channelId === CHANNEL);
    expect(posts).toHaveLength(1);
    expect(posts[0]?.replyTo).toBe(asked);
    expect(ANSWER.length).toBeGreaterThan(posts[0]?.content.length ?? Infinity);
    const edits = discord.edited.filter((edit) => edit.channelId === CHANNEL);
    expect(edits.length).toBeGreaterThanOrEqual(2);
    // Within 5 per 5 s, spread evenly: calls in the channel at least a second apart.
    const times = [
      discord.postedAt[discord.posted.indexOf(posts[0] as never)] ?? 0,
      ...edits.map((e) => e.at),
    ];
    for (let index = 1; index < times.length; index++)
      expect((times[index] ?? 0) - (times[index - 1] ?? 0)).toBeGreaterThanOrEqual(GAP_MS);
  }, 30_000);

  it('with `stream: false` posts the complete answer once and edits nothing', async () => {
    const { model, discord } = await setup({ stream: false });
    model.push({ text: ANSWER, chunks: 4, chunkDelayMs: 100 });
    ask(discord);
    await expect.poll(() => shown(discord), { timeout: 10_000 }).toBe(ANSWER);
    expect(discord.posted.filter((post) => post.channelId === CHANNEL).map((post) => post.content)).toEqual([
      ANSWER,
    ]);
    expect(discord.edited).toEqual([]);
  });
});
