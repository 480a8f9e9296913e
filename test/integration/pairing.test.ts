import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { FakeDiscord } from '../fakes/fake-discord.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startDiscordForTest, startGatewayForTest } from '../helpers/channels.js';
import type { TestGateway } from '../helpers/gateway.js';
import { pollUntil } from '../helpers/process.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * Issue 34 item 4: with `channels.discord.pairing`, an unknown sender's direct message gets a
 * pairing code and nothing else (no model call); an owner's `/pair approve` adds the person with
 * the role through the config editor; a flood of 20 messages in a minute is limited. Through the
 * real discord.js against the fake.
 */

const TOKEN = 'fake-discord-pairing-token';
const GUILD = '900000000000000601';
const DM_D9 = '940000000000000609';
const DM_D8 = '940000000000000608';
const D9 = '930000000000000609';
const D8 = '930000000000000608';
const cleanups = cleanupAfterEach();
const CODE = /([A-Z2-9]{4}-[A-Z2-9]{4})/;

async function startRig() {
  const discord = await startDiscordForTest(cleanups, {
    token: TOKEN,
    guilds: [{ id: GUILD, channels: [] }],
  });
  const model = await startFakeOpenAIServer();
  cleanups.push(() => model.close());
  const gateway = await startGatewayForTest(cleanups, {
    config: {
      channels: { discord: { token: TOKEN, apiBase: discord.apiBase, stream: false, pairing: true } },
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-pair-01' } },
      agents: { main: { model: 'fake' } },
    },
  });
  return { discord, model, gateway };
}

/** A direct message from `author` in `channelId`; resolves with the reply to it. */
async function dm(discord: FakeDiscord, channelId: string, author: string, text: string): Promise<string> {
  const id = discord.dispatchMessage({ channelId, authorId: author, content: text });
  const reply = await pollUntil('the Discord reply', () =>
    discord.posted.find((post) => post.replyTo === id),
  );
  return reply.content;
}

async function waitForRestarts(gateway: TestGateway, count: number): Promise<void> {
  await expect
    .poll(() => gateway.host.restarts === count && gateway.host.loaded !== undefined, { timeout: 15_000 })
    .toBe(true);
}

describe('pairing', () => {
  it('answers an unknown DM with a code and nothing else; an owner’s approval adds the person with the role', async () => {
    const { discord, model, gateway } = await startRig();
    const first = await dm(discord, DM_D9, D9, 'hello, can I use this?');
    const code = CODE.exec(first)?.[1];
    expect(first).toMatch(/does not know you yet/);
    // A command is no way around it: the same code again.
    expect(await dm(discord, DM_D9, D9, '/whoami')).toBe(first);
    expect(model.requests).toHaveLength(0);
    if (code === undefined) throw new Error(`no code in: ${first}`);

    const waiting = await gateway.request('GET', '/api/people');
    expect(waiting.body.pairing).toEqual([expect.objectContaining({ identity: `discord:${D9}` })]);
    // A wrong code tells nothing about who exists.
    const wrong = await gateway.send('/pair approve ABCD-EFGH operator');
    expect(wrong.body.replies[0].text).toMatch(/not valid/);

    const approved = await gateway.send(`/pair approve ${code} operator`);
    expect(approved.body.replies[0].text).toMatch(
      new RegExp(`^Paired: discord:${D9} is person discord-${D9} \\(role operator\\)`),
    );
    await waitForRestarts(gateway, 1);
    const file = JSON.parse((await readFile(gateway.configPath, 'utf8')).replace(/^\/\/.*$/gm, ''));
    expect(file.people[`discord-${D9}`]).toEqual({ role: 'operator', identities: [`discord:${D9}`] });
    const history = await gateway.request('GET', '/api/config/history');
    expect(history.body.changes.at(-1)).toMatchObject({ actor: 'webchat:local' });
    const change = await gateway.request('GET', `/api/config/history/${history.body.changes.at(-1).number}`);
    expect(change.body.diff).toContain(`discord:${D9}`);

    // Now heard: the model answers.
    expect(await dm(discord, DM_D9, D9, 'hello again')).toBe('ok');
    expect(model.requests).toHaveLength(1);
    // The code was used up.
    expect((await gateway.send(`/pair approve ${code}`)).body.replies[0].text).toMatch(/not valid/);
  }, 60_000);

  it('limits 20 pairing attempts in a minute from one user, and answers the flood once', async () => {
    const { discord, model, gateway } = await startRig();
    for (let attempt = 0; attempt < 20; attempt += 1)
      discord.dispatchMessage({ channelId: DM_D8, authorId: D8, content: `let me in ${attempt}` });
    const limited = () => gateway.logLines.filter((line) => line.includes('over the rate limit')).length;
    await pollUntil('15 attempts over the limit', () => limited() === 15 || undefined);
    // Every attempt is settled; the answers of the 5 counted and the one refusal told are all there are.
    const replies = await pollUntil('the six answers', () => {
      const posted = discord.posted.filter((post) => post.channelId === DM_D8).map((post) => post.content);
      return posted.length >= 6 ? posted : undefined;
    });
    expect(replies).toHaveLength(6);
    expect(new Set(replies.slice(0, 5)).size).toBe(1);
    expect(replies[5]).toMatch(/^Too many code requests/);
    expect(model.requests).toHaveLength(0);
    // One code waits, not twenty.
    const people = await gateway.request('GET', '/api/people');
    expect(people.body.pairing).toHaveLength(1);
  }, 60_000);
});
