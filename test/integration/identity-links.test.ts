// First, as in a process where Slack's adapter loads before Discord's (see attach-both-platforms).
import '../../src/surfaces/channels/slack/index.js';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { resolvePrincipal } from '../../src/base/access/index.js';
import type { FakeDiscord } from '../fakes/fake-discord.js';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import type { FakeSlack } from '../fakes/fake-slack.js';
import { startDiscordForTest, startGatewayForTest, startSlackForTest } from '../helpers/channels.js';
import { httpWithUsers, type TestGateway } from '../helpers/gateway.js';
import { pollUntil } from '../helpers/process.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * Issue 34 item 3: Slack U1 and Discord D1 linked through codes typed on both sides, through the
 * real Bolt and discord.js against the fakes and the real config editor; wrong, expired, replayed
 * and third-person codes refused; unlinking leaves every session readable.
 */

const TOKEN = 'fake-discord-identity-token';
const GUILD = '900000000000000501';
const CHANNEL = '910000000000000501';
const D1 = '930000000000000501';
const D3 = '930000000000000503';
const cleanups = cleanupAfterEach();
const CODE = /([A-Z2-9]{4}-[A-Z2-9]{4})/;

interface Rig {
  slack: FakeSlack;
  discord: FakeDiscord;
  gateway: TestGateway;
  clock: { now: number };
}

/** Each person signs in to the web chat with their own token (`linked sessions` below). */
const TOKENS = { ann: 'ann-token-0123456789abcdef', bob: 'bob-token-0123456789abcdef' } as const;

async function startRig(overrides: Record<string, unknown> = {}): Promise<Rig & { model: FakeModelServer }> {
  const discord = await startDiscordForTest(cleanups, {
    token: TOKEN,
    guilds: [{ id: GUILD, channels: [CHANNEL] }],
  });
  const slack = await startSlackForTest(cleanups, { echoPosts: true });
  const model = await startFakeOpenAIServer();
  cleanups.push(() => model.close());
  const clock = { now: Date.now() };
  const gateway = await startGatewayForTest(cleanups, {
    now: () => new Date(clock.now),
    config: {
      people: { ann: { role: 'operator', identities: ['slack:U1'] } },
      channels: {
        discord: { token: TOKEN, apiBase: discord.apiBase, stream: false },
        slack: { botToken: 'xoxb-link', appToken: 'xapp-link', apiUrl: slack.apiUrl, stream: false },
      },
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-link-01' } },
      agents: { main: { model: 'fake' } },
      ...overrides,
    },
  });
  await slack.connected();
  return { slack, discord, gateway, clock, model };
}

let slackTs = 100;
/** `text` in U1's direct messages (or `user`'s); resolves with the gateway's answer there. */
async function onSlackDm(slack: FakeSlack, text: string, user = 'U1'): Promise<string> {
  slackTs += 1;
  const ts = `${slackTs}.1`;
  const before = slack.callsTo('chat.postMessage').length;
  await slack.deliver({ type: 'message', channel: `D${user}`, channel_type: 'im', user, text, ts });
  const call = await slack.waitForCall(
    'chat.postMessage',
    (candidate) =>
      candidate.args.channel === `D${user}` && slack.callsTo('chat.postMessage').indexOf(candidate) >= before,
    15_000,
  );
  return String(call.args.text);
}

/** `text` mentioning the bot in the guild channel as `author`; resolves with the reply to it. */
async function onDiscord(discord: FakeDiscord, text: string, author = D1): Promise<string> {
  const id = discord.dispatchMessage({
    channelId: CHANNEL,
    guildId: GUILD,
    authorId: author,
    content: `<@${discord.botId}> ${text}`,
    mentions: [discord.botId],
  });
  const reply = await pollUntil('the Discord reply', () =>
    discord.posted.find((post) => post.replyTo === id),
  );
  return reply.content;
}

function codeIn(text: string): string {
  const code = CODE.exec(text)?.[1];
  if (code === undefined) throw new Error(`no code in: ${text}`);
  return code;
}

async function waitForRestarts(gateway: TestGateway, count: number): Promise<void> {
  await expect
    .poll(() => gateway.host.restarts === count && gateway.host.loaded !== undefined, { timeout: 15_000 })
    .toBe(true);
}

async function peopleInFile(gateway: TestGateway): Promise<Record<string, { identities: string[] }>> {
  const text = await readFile(gateway.configPath, 'utf8');
  return JSON.parse(text.replace(/^\/\/.*$/gm, '')).people;
}

describe('verified identity links', () => {
  it('links Slack U1 and Discord D1 through codes on both sides; U1’s role applies on Discord; unlinking keeps every session', async () => {
    const { slack, discord, gateway } = await startRig();
    const refused = /not valid/;
    // A session on each platform before the link.
    expect(await onSlackDm(slack, 'hello from slack')).toBe('ok');
    expect(await onDiscord(discord, 'hello from discord')).toBe('ok');

    // A wrong code, typed before anything was asked.
    expect(await onDiscord(discord, '/link ABCD-EFGH')).toMatch(refused);
    const first = codeIn(await onSlackDm(slack, '/link'));
    // U1's own code is not U1's to answer.
    expect(await onSlackDm(slack, `/link ${first}`)).toMatch(refused);
    const answer = await onDiscord(discord, `/link ${first}`);
    expect(answer).toContain('slack:U1');
    const confirm = codeIn(answer);
    // Replayed: the first code works once.
    expect(await onDiscord(discord, `/link ${first}`, D3)).toMatch(refused);
    // A third person cannot finish the link U1 began.
    expect(await onDiscord(discord, `/link confirm ${confirm}`, D3)).toMatch(refused);
    // Nothing was written yet.
    expect((await peopleInFile(gateway)).ann?.identities).toEqual(['slack:U1']);

    const linked = await onSlackDm(slack, `/link confirm ${confirm}`);
    expect(linked).toMatch(/^Linked: discord:930000000000000501 joins person ann \(role operator\)/);
    await waitForRestarts(gateway, 1);
    expect((await peopleInFile(gateway)).ann?.identities).toEqual(['slack:U1', `discord:${D1}`]);
    // Audited with its diff, as U1.
    const history = await gateway.request('GET', '/api/config/history');
    const change = history.body.changes.at(-1);
    expect(change).toMatchObject({ actor: 'slack:U1' });
    const diff = await gateway.request('GET', `/api/config/history/${change.number}`);
    expect(diff.body.diff).toContain(`discord:${D1}`);

    // U1's role on Discord: D1 is person ann now, in the config the gateway runs.
    const running = gateway.host.loaded?.config;
    if (!running) throw new Error('no running config');
    expect(resolvePrincipal(running, `discord:${D1}`)).toMatchObject({ personId: 'ann', role: 'operator' });
    expect(await onDiscord(discord, '/whoami')).toMatch(
      new RegExp(`^You are ann \\(discord:${D1}\\), role operator`),
    );
    // The link's confirmation code was used up by the link.
    expect(await onSlackDm(slack, `/link confirm ${confirm}`)).toMatch(refused);

    // The People page shows the link, and an owner removes it.
    const people = await gateway.request('GET', '/api/people');
    expect(people.body.people).toEqual([
      { id: 'ann', role: 'operator', identities: ['slack:U1', `discord:${D1}`] },
    ]);
    const sessions = (await gateway.request('GET', '/api/sessions')).body.sessions as {
      key: string;
      transcriptLength: number;
    }[];
    expect(sessions.map((session) => session.key).sort()).toEqual([
      `agent:main:discord:channel:${CHANNEL}`,
      'agent:main:slack:direct:U1',
    ]);
    const removed = await gateway.request('POST', '/api/people/ann/unlink', { identity: `discord:${D1}` });
    expect(removed).toMatchObject({ status: 200 });
    await waitForRestarts(gateway, 2);
    expect((await peopleInFile(gateway)).ann?.identities).toEqual(['slack:U1']);
    for (const session of sessions) {
      const transcript = await gateway.request(
        'GET',
        `/api/sessions/${encodeURIComponent(session.key)}/transcript`,
      );
      expect(transcript.status).toBe(200);
      expect(transcript.body.entries.length).toBe(session.transcriptLength);
    }
    // Each goes on in its own session, where it was.
    expect(await onSlackDm(slack, 'still there?')).toBe('ok');
    expect(await onDiscord(discord, 'still there?')).toBe('ok');
    const later = (await gateway.request('GET', '/api/sessions')).body.sessions as typeof sessions;
    for (const session of sessions) {
      const now = later.find((candidate) => candidate.key === session.key);
      expect(now?.transcriptLength).toBeGreaterThan(session.transcriptLength);
    }
    const after = gateway.host.loaded?.config;
    if (!after) throw new Error('no running config');
    expect(resolvePrincipal(after, `discord:${D1}`)).toMatchObject({ role: 'member' });
    expect(await onDiscord(discord, '/whoami')).toBe(`You are discord:${D1} (not an owner).`);
    expect(resolvePrincipal(after, 'slack:U1')).toMatchObject({ personId: 'ann', role: 'operator' });
  }, 90_000);

  it('refuses a link confirmed after the ten minutes', async () => {
    const { slack, discord, clock } = await startRig();
    const first = codeIn(await onSlackDm(slack, '/link'));
    const confirm = codeIn(await onDiscord(discord, `/link ${first}`));
    clock.now += 10 * 60_000 + 1;
    expect(await onSlackDm(slack, `/link confirm ${confirm}`)).toMatch(/not valid/);
  }, 60_000);

  it('shows a person’s web chat their Slack direct chat, continues it there, refuses another’s; unlinking takes it off the list and orphans nothing', async () => {
    const { slack, gateway, model } = await startRig({
      http: httpWithUsers(TOKENS),
      people: {
        ann: { role: 'member', identities: ['slack:U1', 'webchat:ann'] },
        bob: { role: 'member', identities: ['slack:U2', 'webchat:bob'] },
      },
    });
    const as = (person: keyof typeof TOKENS, method: string, route: string, body?: unknown) =>
      gateway.request(method, route, body, TOKENS[person]);
    const annKey = 'agent:main:slack:direct:U1';
    const bobKey = 'agent:main:slack:direct:U2';
    expect(await onSlackDm(slack, 'hello from slack')).toBe('ok');
    expect(await onSlackDm(slack, 'bob here', 'U2')).toBe('ok');

    // Listed beside her web threads: her own Slack direct chat, not Bob's.
    const list = await as('ann', 'GET', '/api/webchat/linked');
    expect(list.status).toBe(200);
    expect(list.body.sessions).toEqual([
      expect.objectContaining({
        sessionKey: annKey,
        platform: 'slack',
        identity: 'slack:U1',
        agentId: 'main',
      }),
    ]);
    expect(list.body.sessions[0].title).toContain('hello from slack');
    expect(
      (await as('bob', 'GET', '/api/webchat/linked')).body.sessions.map((s: any) => s.sessionKey),
    ).toEqual([bobKey]);
    const history = await as('ann', 'GET', `/api/webchat/linked/history?key=${encodeURIComponent(annKey)}`);
    expect(history.body.messages.map((m: any) => `${m.role}: ${m.text}`)).toEqual([
      'user: hello from slack',
      'assistant: ok',
    ]);

    // Continued from the web chat: the same session and agent; the typed text and the answer are
    // posted to the Slack chat too.
    const posts = slack.callsTo('chat.postMessage').length;
    const sessionsBefore = (await gateway.request('GET', '/api/sessions')).body.sessions.length;
    model.push({ text: 'answered in the same chat' });
    const sent = await as('ann', 'POST', '/api/webchat/linked/messages', {
      key: annKey,
      text: 'continuing from the web',
    });
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({
      sessionKey: annKey,
      replies: [expect.objectContaining({ text: 'answered in the same chat' })],
    });
    // The model saw the Slack conversation: one transcript.
    expect(JSON.stringify(model.requests.at(-1)?.messages)).toContain('hello from slack');
    const transcript = await gateway.request('GET', `/api/sessions/${encodeURIComponent(annKey)}/transcript`);
    expect(transcript.body.entries.slice(-2)).toEqual([
      expect.objectContaining({ role: 'user', text: 'continuing from the web', senderId: 'webchat:ann' }),
      expect.objectContaining({ role: 'assistant', text: 'answered in the same chat' }),
    ]);
    expect((await gateway.request('GET', '/api/sessions')).body.sessions).toHaveLength(sessionsBefore);
    const posted = slack
      .callsTo('chat.postMessage')
      .slice(posts)
      .map((call) => `${call.args.channel}: ${call.args.text}`);
    expect(posted).toEqual([
      'DU1: From the web chat: continuing from the web',
      'DU1: answered in the same chat',
    ]);

    // Bob's chat is not Ann's to read or continue: refused naming the role and the rule.
    const refusal =
      /^ann \(webchat:ann\), role member may not read what bob owns: role member sees its own only \(sees: own\)$/;
    const read = await as('ann', 'GET', `/api/webchat/linked/history?key=${encodeURIComponent(bobKey)}`);
    expect(read.status).toBe(403);
    expect(read.body.message).toMatch(refusal);
    const post = await as('ann', 'POST', '/api/webchat/linked/messages', { key: bobKey, text: 'hi bob' });
    expect(post.status).toBe(403);
    expect(post.body.message).toMatch(refusal);
    expect((await as('ann', 'GET', '/api/webchat/linked/history?key=agent%3Amain%3Anope')).status).toBe(404);

    // Unlinking her web chat identity takes the chat off her web list; both sessions stay
    // readable and going where they were.
    const webKey = 'agent:main:webchat:direct:ann';
    expect((await as('ann', 'POST', '/api/webchat/messages', { text: 'hello from the web' })).status).toBe(
      200,
    );
    const lengthOf = async (key: string) =>
      (await gateway.request('GET', `/api/sessions/${encodeURIComponent(key)}/transcript`)).body.entries
        .length as number;
    const before = { slack: await lengthOf(annKey), web: await lengthOf(webKey) };
    const removed = await gateway.request('POST', '/api/people/ann/unlink', { identity: 'webchat:ann' });
    expect(removed.status).toBe(200);
    await waitForRestarts(gateway, 1);
    expect((await peopleInFile(gateway)).ann?.identities).toEqual(['slack:U1']);
    expect((await as('ann', 'GET', '/api/webchat/linked')).body.sessions).toEqual([]);
    const orphan = await as('ann', 'POST', '/api/webchat/linked/messages', {
      key: annKey,
      text: 'still mine?',
    });
    expect(orphan.status).toBe(403);
    expect(orphan.body.message).toBe(
      'webchat:ann, role member may not read what ann owns: role member sees its own only (sees: own)',
    );
    expect(await onSlackDm(slack, 'still there?')).toBe('ok');
    expect((await as('ann', 'POST', '/api/webchat/messages', { text: 'and here?' })).status).toBe(200);
    expect(await lengthOf(annKey)).toBe(before.slack + 2);
    expect(await lengthOf(webKey)).toBe(before.web + 2);
  }, 90_000);
});
