import { readFile } from 'node:fs/promises';
import { parse } from 'jsonc-parser';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { FakeDiscord, PostedMessage } from '../fakes/fake-discord.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startDiscordForTest, startGatewayForTest } from '../helpers/channels.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * An approval on Discord through the whole gateway: the fake OpenAI model calls `shell.exec` (policy
 * `ask`), the run pauses and a request with two buttons is posted in the chat; clicks come as real
 * INTERACTION_CREATEs to the real discord.js.
 */

const TOKEN = 'fake-discord-approval-token';
const GUILD = '900000000000000301';
const CHANNEL = '910000000000000301';
const ALICE = '930000000000000301';
const BOB = '930000000000000302';

const cleanups = cleanupAfterEach();

async function postedWhere(
  fake: FakeDiscord,
  predicate: (post: PostedMessage) => boolean,
): Promise<PostedMessage> {
  await expect.poll(() => fake.posted.some(predicate), { timeout: 10_000 }).toBe(true);
  return fake.posted.find(predicate) as PostedMessage;
}

/** The text of the tool result the model was given in request `index`. */
function toolResult(requests: any[], index: number): string {
  const messages = requests[index]?.messages as { role: string; content: unknown }[] | undefined;
  return JSON.stringify(messages?.filter((message) => message.role === 'tool') ?? []);
}

async function startApproval(command: string, finalText: string) {
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
        fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-discord-approval-01' },
      },
      agents: { main: { model: 'fake' } },
      tools: { toolpacks: ['shell'] },
      approvals: { tools: { 'shell.exec': 'ask' } },
      channels: { discord: { token: TOKEN, apiBase: discord.apiBase } },
    },
  });
  model.push({ toolCalls: [{ name: 'shell.exec', arguments: { command } }] });
  model.push({ text: finalText });
  discord.dispatchMessage({
    channelId: CHANNEL,
    guildId: GUILD,
    authorId: ALICE,
    content: `<@${discord.botId}> please run ${command}`,
    mentions: [discord.botId],
  });
  const request = await postedWhere(discord, (post) => (post.buttons?.length ?? 0) >= 2);
  const messageId = discord.idOf(request) as string;
  return { model, discord, gateway, request, messageId };
}

/** The edit a click made, once the fake received it. */
async function editAfter(fake: FakeDiscord, interactionId: string): Promise<string> {
  await expect
    .poll(() => fake.interactions.some((r) => r.kind === 'edit' && r.interactionId === interactionId), {
      timeout: 10_000,
    })
    .toBe(true);
  const edit = fake.interactions.find((r) => r.kind === 'edit' && r.interactionId === interactionId);
  return edit?.kind === 'edit' ? edit.content : '';
}

describe('approvals on Discord through the gateway', () => {
  it("pauses shell.exec for a request with buttons and runs it on the owner's Approve, once", async () => {
    const { model, discord, request, messageId } = await startApproval(
      'echo ran-after-approval',
      'It printed ran-after-approval.',
    );
    expect(request.channelId).toBe(CHANNEL);
    expect(request.content).toContain('shell.exec');
    expect(request.content).toContain('echo ran-after-approval');
    expect(request.content).toMatch(/\/approve [A-Z0-9]+/);
    const [approve, deny] = request.buttons ?? [];
    expect([approve?.label, approve?.style, deny?.label, deny?.style]).toEqual(['Approve', 1, 'Deny', 4]);
    // The run waits: the model was asked once.
    expect(model.requests).toHaveLength(1);

    const approved = discord.click({ messageId, userId: ALICE, customId: approve?.customId as string });
    expect(await editAfter(discord, approved)).toContain(`Approved by discord:${ALICE}`);
    await postedWhere(discord, (post) => post.content === 'It printed ran-after-approval.');
    expect(toolResult(model.requests, 1)).toContain('ran-after-approval');
    expect(discord.message(messageId)?.buttons).toEqual([]);
    // A second click on the decided request (a stale or tampered client) runs nothing again.
    const again = discord.click({
      messageId,
      userId: ALICE,
      customId: approve?.customId as string,
      forged: true,
    });
    expect(await editAfter(discord, again)).toMatch(/already decided/i);
    expect(model.requests).toHaveLength(2);
  });

  it("refuses a non-approver's click: nothing runs, and the request stays open for the owner", async () => {
    const { model, discord, request, messageId } = await startApproval(
      'echo ran-for-alice',
      'Done for Alice.',
    );
    const approve = request.buttons?.[0];
    const refused = discord.click({ messageId, userId: BOB, customId: approve?.customId as string });
    expect(await editAfter(discord, refused)).toMatch(
      new RegExp(`\\n\\nRefused: only discord:${ALICE} may decide [A-Z0-9]+; you are discord:${BOB}`),
    );
    expect(model.requests).toHaveLength(1);
    expect(discord.posted.some((post) => post.content === 'Done for Alice.')).toBe(false);
    // Still pending: the owner's decision (typed, as the request says) runs it.
    const code = /\/approve ([A-Z0-9]+)/.exec(request.content)?.[1] as string;
    discord.dispatchMessage({
      channelId: CHANNEL,
      guildId: GUILD,
      authorId: ALICE,
      content: `<@${discord.botId}> /approve ${code}`,
      mentions: [discord.botId],
    });
    await postedWhere(discord, (post) => post.content === 'Done for Alice.');
    expect(toolResult(model.requests, 1)).toContain('ran-for-alice');
  });

  it("denies on the owner's Deny: the model reads the denial and answers, nothing runs", async () => {
    const { model, discord, request, messageId } = await startApproval(
      'echo must-not-run > /dev/null; echo ran',
      'Understood, I did not run it.',
    );
    const deny = request.buttons?.[1];
    const denied = discord.click({ messageId, userId: ALICE, customId: deny?.customId as string });
    expect(await editAfter(discord, denied)).toMatch(/denied/i);
    await postedWhere(discord, (post) => post.content === 'Understood, I did not run it.');
    expect(toolResult(model.requests, 1)).toMatch(/denied/);
    expect(toolResult(model.requests, 1)).not.toContain('"ran');
    expect(discord.message(messageId)?.buttons).toEqual([]);
  });

  it("writes 'always' for the tool in the agent on the owner's third button, and runs the command", async () => {
    const { model, discord, gateway, request, messageId } = await startApproval('echo always-ok', 'Ran it.');
    const always = request.buttons?.[2];
    expect(always).toMatchObject({ label: 'Always for shell.exec in main', style: 2 });
    const clicked = discord.click({ messageId, userId: ALICE, customId: always?.customId as string });
    const text = await editAfter(discord, clicked);
    expect(text).toContain(
      `Approved by discord:${ALICE}, and from now on always for shell.exec in agent main`,
    );
    expect(text).toContain('Written to agents.main.approvals.tools');
    await postedWhere(discord, (post) => post.content === 'Ran it.');
    expect(toolResult(model.requests, 1)).toContain('always-ok');
    const written = parse(await readFile(gateway.configPath, 'utf8'));
    expect(written.agents.main.approvals.tools).toEqual({ 'shell.exec': 'auto' });
  });
});
