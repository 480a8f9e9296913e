import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { FakeDiscord, PostedMessage } from '../fakes/fake-discord.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startDiscordForTest, startGatewayForTest } from '../helpers/channels.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * A Discord approval across a gateway restart, and a button whose value was edited: the real
 * discord.js against the fake Discord, the fake OpenAI model calling `shell.exec` (policy `ask`).
 * The command appends a line to a file, so how often it ran is counted, not inferred.
 */

const TOKEN = 'fake-discord-approval-restart-token';
const GUILD = '900000000000000401';
const CHANNEL = '910000000000000401';
const ALICE = '930000000000000401';

const cleanups = cleanupAfterEach();

async function postedWhere(
  fake: FakeDiscord,
  predicate: (post: PostedMessage) => boolean,
): Promise<PostedMessage> {
  await expect.poll(() => fake.posted.some(predicate), { timeout: 15_000 }).toBe(true);
  return fake.posted.find(predicate) as PostedMessage;
}

/** Waits until the bot said `text`: posted, or edited into a message (a streamed reply's status line). */
async function saidSomewhere(fake: FakeDiscord, text: string): Promise<void> {
  const said = () =>
    fake.posted.some((post) => post.content === text) || fake.edited.some((edit) => edit.content === text);
  await expect.poll(said, { timeout: 15_000 }).toBe(true);
}

async function editAfter(fake: FakeDiscord, interactionId: string): Promise<string> {
  const edit = () => fake.interactions.find((r) => r.kind === 'edit' && r.interactionId === interactionId);
  await expect.poll(() => edit() !== undefined, { timeout: 15_000 }).toBe(true);
  const found = edit();
  return found?.kind === 'edit' ? found.content : '';
}

async function ranLines(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.split('\n').filter((line) => line !== '');
}

async function start(options: { callsAfterRestart?: boolean } = {}) {
  const model = await startFakeOpenAIServer();
  onTestFinished(() => model.close());
  const discord = await startDiscordForTest(cleanups, {
    token: TOKEN,
    guilds: [{ id: GUILD, channels: [CHANNEL] }],
  });
  const gateway = await startGatewayForTest(cleanups, {
    config: {
      owners: [`discord:${ALICE}`],
      models: {
        fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-discord-restart-01' },
      },
      agents: { main: { model: 'fake' } },
      tools: { toolpacks: ['shell'] },
      // A run waiting for a decision does not finish by itself: the drain ends it (1 s, not 10).
      gateway: { drainTimeoutMs: 1000 },
      channels: { discord: { token: TOKEN, apiBase: discord.apiBase } },
    },
  });
  const file = path.join(gateway.dir, 'ran.txt');
  const call = { toolCalls: [{ name: 'shell.exec', arguments: { command: `echo ran >> ${file}` } }] };
  model.push(call);
  // The run a restart interrupts is resumed: the model reads that its call got no result and makes it again.
  if (options.callsAfterRestart) model.push(call);
  model.push({ text: 'Appended.' });
  discord.dispatchMessage({
    channelId: CHANNEL,
    guildId: GUILD,
    authorId: ALICE,
    content: `<@${discord.botId}> append a line`,
    mentions: [discord.botId],
  });
  const request = await postedWhere(discord, (post) => (post.buttons?.length ?? 0) >= 2);
  return { model, discord, gateway, file, request, messageId: discord.idOf(request) as string };
}

describe('Discord approvals: restart and edited buttons', () => {
  it('resolves a request pending across a restart with a click on the message posted before it, once', async () => {
    const { model, discord, gateway, file, request, messageId } = await start({ callsAfterRestart: true });
    expect(await ranLines(file)).toEqual([]);
    await gateway.restart();
    // discord.js identified again; the old connection is closed.
    await expect.poll(() => discord.connections(), { timeout: 15_000 }).toBe(1);
    const approve = request.buttons?.[0]?.customId as string;
    const clicked = discord.click({ messageId, userId: ALICE, customId: approve });
    expect(await editAfter(discord, clicked)).toContain(`Approved by discord:${ALICE}`);
    await saidSomewhere(discord, 'Appended.');
    expect(await ranLines(file)).toEqual(['ran']);
    // A click replayed after the decision runs nothing again.
    const again = discord.click({ messageId, userId: ALICE, customId: approve, forged: true });
    expect(await editAfter(discord, again)).toMatch(/already decided/i);
    expect(await ranLines(file)).toEqual(['ran']);
    // The resumed run's call waited for the request posted before the restart: no second one.
    expect(discord.posted.filter((post) => post.buttons !== undefined)).toHaveLength(1);
    expect(model.requests).toHaveLength(3);
  });

  it('refuses a button whose value was edited (another arguments hash), and the real one still works', async () => {
    const { discord, file, request, messageId } = await start();
    const approve = request.buttons?.[0]?.customId as string;
    // The value ends in the hash of the arguments the request showed; change its last character.
    const edited = `${approve.slice(0, -1)}${approve.endsWith('0') ? '1' : '0'}`;
    const forged = discord.click({ messageId, userId: ALICE, customId: edited, forged: true });
    expect(await editAfter(discord, forged)).toMatch(/\n\nRefused: this button does not match request/);
    expect(await ranLines(file)).toEqual([]);
    // Edited to a value that is not an approval button at all.
    const unknown = discord.click({ messageId, userId: ALICE, customId: 'not-ours', forged: true });
    expect(await editAfter(discord, unknown)).toMatch(/\n\nRefused: this button is not an approval button/);
    const code = /\/approve ([A-Z0-9]+)/.exec(request.content)?.[1] as string;
    discord.dispatchMessage({
      channelId: CHANNEL,
      guildId: GUILD,
      authorId: ALICE,
      content: `<@${discord.botId}> /approve ${code}`,
      mentions: [discord.botId],
    });
    await saidSomewhere(discord, 'Appended.');
    expect(await ranLines(file)).toEqual(['ran']);
  });
});
