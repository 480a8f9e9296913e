import { readFile } from 'node:fs/promises';
import { parse } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import type { FakeDiscord, PostedMessage } from '../fakes/fake-discord.js';
import { startDiscordForTest, startGatewayForTest } from '../helpers/channels.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * An owner's held command on Discord through the whole gateway: `/config patch` that removes a key
 * is posted with its diff and Confirm/Cancel buttons and writes nothing; only its owner's Confirm
 * (a real INTERACTION_CREATE to the real discord.js) runs it.
 */

const TOKEN = 'fake-discord-confirm-token';
const GUILD = '900000000000000501';
const CHANNEL = '910000000000000501';
const ALICE = '930000000000000501';
const CAROL = '930000000000000502';

const cleanups = cleanupAfterEach();

async function postedWhere(
  fake: FakeDiscord,
  predicate: (post: PostedMessage) => boolean,
): Promise<PostedMessage> {
  await expect.poll(() => fake.posted.some(predicate), { timeout: 10_000 }).toBe(true);
  return fake.posted.find(predicate) as PostedMessage;
}

async function editAfter(fake: FakeDiscord, interactionId: string): Promise<string> {
  const edit = () => fake.interactions.find((r) => r.kind === 'edit' && r.interactionId === interactionId);
  await expect.poll(() => edit() !== undefined, { timeout: 10_000 }).toBe(true);
  const found = edit();
  return found?.kind === 'edit' ? found.content : '';
}

/** Starts a gateway with Discord and sends Alice's held patch; resolves with the posted request. */
async function holdPatch() {
  const discord = await startDiscordForTest(cleanups, {
    token: TOKEN,
    guilds: [{ id: GUILD, channels: [CHANNEL] }],
  });
  const gateway = await startGatewayForTest(cleanups, {
    config: {
      owners: [`discord:${ALICE}`, `discord:${CAROL}`],
      agents: { main: { displayName: 'Original' } },
      channels: { discord: { token: TOKEN, apiBase: discord.apiBase } },
    },
  });
  const displayName = async () => parse(await readFile(gateway.configPath, 'utf8')).agents.main.displayName;
  const say = (authorId: string, text: string) =>
    discord.dispatchMessage({
      channelId: CHANNEL,
      guildId: GUILD,
      authorId,
      content: `<@${discord.botId}> ${text}`,
      mentions: [discord.botId],
    });
  say(ALICE, '/config patch {"agents":{"main":{"displayName":null}}}');
  const held = await postedWhere(discord, (post) => post.buttons !== undefined);
  return { discord, displayName, say, held, messageId: discord.idOf(held) as string };
}

describe('a held /config patch on Discord', () => {
  it("is posted with its diff and Confirm/Cancel, writes nothing, and is written on its owner's Confirm", async () => {
    const { discord, displayName, held, messageId } = await holdPatch();
    expect(held.content).toContain('displayName');
    expect(held.content).toMatch(/\/confirm [A-Z0-9]+/);
    expect(held.buttons?.map((button) => [button.label, button.style])).toEqual([
      ['Confirm', 1],
      ['Cancel', 4],
    ]);
    expect(await displayName()).toBe('Original');
    const confirm = held.buttons?.[0]?.customId as string;
    const clicked = discord.click({ messageId, userId: ALICE, customId: confirm });
    expect(await editAfter(discord, clicked)).toContain(`Confirmed by discord:${ALICE}`);
    await expect.poll(displayName, { timeout: 10_000 }).toBeUndefined();
    expect(discord.message(messageId)?.buttons).toEqual([]);
  });

  it("refuses another owner's Confirm and writes nothing; the owner's /confirm then writes", async () => {
    const { discord, displayName, say, held, messageId } = await holdPatch();
    const confirm = held.buttons?.[0]?.customId as string;
    const byCarol = discord.click({ messageId, userId: CAROL, customId: confirm });
    expect(await editAfter(discord, byCarol)).toMatch(
      new RegExp(`\\n\\nRefused: only discord:${ALICE} may decide`),
    );
    expect(await displayName()).toBe('Original');
    const code = /\/confirm ([A-Z0-9]+)/.exec(held.content)?.[1] as string;
    say(ALICE, `/confirm ${code}`);
    await expect.poll(displayName, { timeout: 10_000 }).toBeUndefined();
  });
});
