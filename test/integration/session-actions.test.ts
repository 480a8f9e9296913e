import { describe, expect, it } from 'vitest';
import { childRequests, toolResults } from '../fakes/subagent-script.js';
import { askOnSlack, startDiscordForTest, startSlackForTest } from '../helpers/channels.js';
import { TEST_TOKEN, type TestGateway } from '../helpers/gateway.js';
import { startSubagentGateway } from '../helpers/subagent-gateway.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * The control UI's session actions through the real HTTP path of a running gateway: the
 * sub-agent tree, kill and steer (the same action as `/subagents`), a reply into a web chat
 * session and a post into a fake Slack thread, and every refusal (403, 400, 404, 409).
 */

const PARENT = 'agent:main:webchat:direct:local';
const CAROL = 'carol-actions-token-0123456789';

/** A request with a named user's token (the gateway's `request` uses the operator's). */
async function requestAs(gateway: TestGateway, token: string, method: string, route: string, body?: unknown) {
  const response = await fetch(`${gateway.url}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      connection: 'close',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: response.status, body: parsed as any };
}
const cleanups = cleanupAfterEach();
const DISCORD_TOKEN = 'fake-discord-actions-token';
const GUILD = '900000000000000111';
const CHANNEL = '910000000000000111';
const path = (key: string, rest: string) => `/api/sessions/${encodeURIComponent(key)}/${rest}`;

const start = (config: Record<string, unknown> = {}) => startSubagentGateway(cleanups, config);

/** The parent spawns hanging children with these labels; resolves once each child has asked the model. */
async function spawnHanging(context: Awaited<ReturnType<typeof start>>, labels: string[]) {
  const { gateway, model, script } = context;
  for (const label of labels) script.child(`task of ${label}`, { hang: true });
  let results: any[] = [];
  script.parent(
    {
      toolCalls: labels.map((label) => ({
        name: 'sessions_spawn',
        arguments: { task: `task of ${label}`, label },
      })),
    },
    (request) => {
      results = toolResults(request).slice(-labels.length);
      return { text: 'spawned' };
    },
  );
  expect((await gateway.send('spawn them')).status).toBe(200);
  for (const label of labels) {
    await expect
      .poll(() => childRequests(model.received, `task of ${label}`).length, { timeout: 15_000 })
      .toBeGreaterThan(0);
  }
  return results;
}

const tree = async (gateway: TestGateway, key = PARENT) =>
  gateway.request('GET', path(key, 'subagents/tree'));

describe('session actions: sub-agents', () => {
  it('lists the tree with status, runtime, label and model, kills one and steers another (running: injected)', async () => {
    const context = await start();
    const { gateway } = context;
    const spawned = await spawnHanging(context, ['alpha', 'beta']);
    expect(spawned.map((result) => result.status)).toEqual(['accepted', 'accepted']);

    const listed = await tree(gateway);
    expect(listed.status).toBe(200);
    expect(listed.body.children.map((node: any) => [node.label, node.status, node.model])).toEqual([
      ['beta', 'running', 'fake'],
      ['alpha', 'running', 'fake'],
    ]);
    const alpha = listed.body.children.find((node: any) => node.label === 'alpha');
    expect(alpha).toMatchObject({ agentId: 'main', parentSessionKey: PARENT, children: [] });
    expect(alpha.runtimeMs).toBeGreaterThanOrEqual(0);

    const killed = await gateway.request('POST', path(PARENT, 'subagents/kill'), { target: alpha.runId });
    expect(killed).toEqual({ status: 200, body: { text: 'killed alpha.' } });
    const after = await tree(gateway);
    expect(after.body.children.find((node: any) => node.label === 'alpha').status).toBe('killed');

    const steered = await gateway.request('POST', path(PARENT, 'subagents/steer'), {
      target: 'beta',
      message: 'focus on the summary',
    });
    expect(steered).toEqual({ status: 200, body: { text: 'Message sent to subagent.' } });
  });

  it('nests a grandchild under its parent; it is killed in the session that spawned it (maxSpawnDepth 2)', async () => {
    const context = await start({ subagents: { maxSpawnDepth: 2 } });
    const { gateway, model, script } = context;
    script.child(
      'task of manager',
      { toolCalls: [{ name: 'sessions_spawn', arguments: { task: 'task of digger', label: 'digger' } }] },
      { hang: true },
    );
    script.child('task of digger', { hang: true });
    const [manager] = await spawnHanging(context, ['manager']);
    await expect
      .poll(() => childRequests(model.received, 'task of digger').length, { timeout: 15_000 })
      .toBeGreaterThan(0);

    const listed = await tree(gateway);
    expect(listed.body.children).toHaveLength(1);
    const [node] = listed.body.children;
    expect(node).toMatchObject({ label: 'manager', childSessionKey: manager.childSessionKey });
    expect(
      node.children.map((child: any) => [child.label, child.status, child.model, child.parentSessionKey]),
    ).toEqual([['digger', 'running', 'fake', manager.childSessionKey]]);
    const digger = node.children[0];

    // Only the session that spawned a child acts on it, as with /subagents.
    expect(await gateway.request('POST', path(PARENT, 'subagents/kill'), { target: 'digger' })).toMatchObject(
      {
        status: 400,
        body: { field: 'target' },
      },
    );
    expect(
      await gateway.request('POST', path(manager.childSessionKey, 'subagents/kill'), {
        target: digger.runId,
      }),
    ).toEqual({ status: 200, body: { text: 'killed digger.' } });
    const after = await tree(gateway);
    expect(after.body.children[0].status).toBe('running');
    expect(after.body.children[0].children[0].status).toBe('killed');
  });

  it('refuses bad input naming the field, unknown sessions and targets, and non-owners', async () => {
    const { gateway } = await start();
    expect((await gateway.send('hello')).status).toBe(200);
    const post = (rest: string, body: unknown) => gateway.request('POST', path(PARENT, rest), body);

    expect(await post('subagents/frobnicate', { target: '1' })).toMatchObject({
      status: 400,
      body: { field: 'action' },
    });
    expect(await post('subagents/steer', { target: '1' })).toMatchObject({
      status: 400,
      body: { field: 'message', message: 'message: is required to steer' },
    });
    expect(await post('subagents/kill', { target: '1', extra: true })).toMatchObject({
      status: 400,
      body: { field: 'extra' },
    });
    expect(await post('subagents/kill', { target: '' })).toMatchObject({
      status: 400,
      body: { field: 'target' },
    });
    expect(await post('subagents/steer', { target: '1', message: 'x'.repeat(4001) })).toMatchObject({
      status: 400,
      body: { field: 'message' },
    });
    expect(await post('subagents/kill', { target: 'nobody' })).toEqual({
      status: 400,
      body: { error: 'bad_request', field: 'target', message: 'target: Unknown target: nobody' },
    });
    expect(await post('messages', { text: '' })).toMatchObject({ status: 400, body: { field: 'text' } });
    expect(await post('messages', { text: 'x'.repeat(32_001) })).toMatchObject({
      status: 400,
      body: { field: 'text' },
    });

    const unknown = 'agent:main:webchat:direct:nobody';
    for (const [method, rest, body] of [
      ['GET', 'subagents/tree', undefined],
      ['POST', 'subagents/kill', { target: '1' }],
      ['POST', 'messages', { text: 'hi' }],
    ] as const) {
      expect(await gateway.request(method, path(unknown, rest), body)).toEqual({
        status: 404,
        body: { error: 'not_found', message: `unknown session: ${unknown}` },
      });
    }
  });
});

describe('session actions: replies', () => {
  it('replies into a web chat session as its user and posts into a fake Slack thread as the bot', async () => {
    const slack = await startSlackForTest(cleanups);
    const { gateway } = await start({
      channels: { slack: { botToken: 'xoxb-actions', appToken: 'xapp-actions', apiUrl: slack.apiUrl } },
    });
    await slack.connected();
    expect((await gateway.send('first', 'local', 't1')).status).toBe(200);
    const webchatKey = (await gateway.request('GET', '/api/sessions')).body.sessions[0].key;
    const replied = await gateway.request('POST', path(webchatKey, 'messages'), {
      text: 'from the reply box',
    });
    expect(replied).toMatchObject({
      status: 200,
      body: { sessionKey: webchatKey, replies: [{ text: 'ok' }] },
    });
    const webchatEntries = (await gateway.request('GET', path(webchatKey, 'transcript'))).body.entries;
    expect(webchatEntries.at(-2)).toMatchObject({
      role: 'user',
      text: 'from the reply box',
      senderId: 'webchat:local',
    });

    await askOnSlack(slack, '200.1', 'hello');
    const sessions = (await gateway.request('GET', '/api/sessions')).body.sessions;
    const slackKey = sessions.find((session: any) => session.channel === 'slack').key;
    const posted = await gateway.request('POST', path(slackKey, 'messages'), { text: 'an operator here' });
    expect(posted).toMatchObject({ status: 200, body: { sessionKey: slackKey, posted: true } });
    const post = await slack.waitForCall(
      'chat.postMessage',
      (call) => String(call.args.text).includes('an operator here'),
      15_000,
    );
    expect(post.args).toMatchObject({
      channel: 'C1',
      thread_ts: '200.1',
      text: 'webchat:local (control UI): an operator here',
    });
    const entries = (await gateway.request('GET', path(slackKey, 'transcript'))).body.entries;
    expect(entries.at(-1)).toMatchObject({
      role: 'system',
      text: 'webchat:local (control UI): an operator here',
      senderId: 'webchat:local',
    });
  });

  it("posts an owner's reply into a fake Discord channel session as the bot", async () => {
    const discord = await startDiscordForTest(cleanups, {
      token: DISCORD_TOKEN,
      guilds: [{ id: GUILD, channels: [CHANNEL] }],
    });
    const { gateway } = await start({
      channels: { discord: { token: DISCORD_TOKEN, apiBase: discord.apiBase } },
    });
    discord.dispatchMessage({
      channelId: CHANNEL,
      guildId: GUILD,
      authorId: '930000000000000111',
      content: `<@${discord.botId}> hello`,
      mentions: [discord.botId],
    });
    await expect.poll(() => discord.posted.length, { timeout: 15_000 }).toBeGreaterThan(0);
    const sessions = (await gateway.request('GET', '/api/sessions')).body.sessions;
    const discordKey = sessions.find((session: any) => session.channel === 'discord').key;
    const posted = await gateway.request('POST', path(discordKey, 'messages'), {
      text: 'an owner on Discord',
    });
    expect(posted).toMatchObject({ status: 200, body: { sessionKey: discordKey, posted: true } });
    await expect
      .poll(() => discord.posted.find((post) => post.content.includes('an owner on Discord')), {
        timeout: 15_000,
      })
      .toMatchObject({ content: 'webchat:local (control UI): an owner on Discord' });
    const entries = (await gateway.request('GET', path(discordKey, 'transcript'))).body.entries;
    expect(entries.at(-1)).toMatchObject({ role: 'system', senderId: 'webchat:local' });
  });

  it('lets a non-owner reply in their own web chat session only, never post into Slack or act on sub-agents', async () => {
    const slack = await startSlackForTest(cleanups);
    // A named user who is not an owner (the gateway token is the operator, owner-equivalent).
    const { gateway } = await start({
      owners: ['webchat:boss'],
      http: { port: 0, token: TEST_TOKEN, users: { carol: { token: CAROL } } },
      channels: { slack: { botToken: 'xoxb-actions', appToken: 'xapp-actions', apiUrl: slack.apiUrl } },
    });
    await slack.connected();
    const carol = (method: string, route: string, body?: unknown) =>
      requestAs(gateway, CAROL, method, route, body);
    const mine = 'agent:main:webchat:direct:carol';
    expect((await carol('POST', '/api/webchat/messages', { text: 'mine' })).status).toBe(200);
    const own = await carol('POST', path(mine, 'messages'), { text: 'still mine' });
    expect(own.status).toBe(200);
    expect((await gateway.send('theirs', 'other')).status).toBe(200);
    const other = 'agent:main:webchat:direct:other';
    // "Not yours" is the same 404 as an unknown key: a non-owner learns nothing by probing.
    const unknown = 'agent:main:webchat:direct:nobody';
    expect(await carol('POST', path(other, 'messages'), { text: 'not mine' })).toEqual({
      status: 404,
      body: { error: 'not_found', message: `unknown session: ${other}` },
    });
    expect(await carol('POST', path(unknown, 'messages'), { text: 'not mine' })).toEqual({
      status: 404,
      body: { error: 'not_found', message: `unknown session: ${unknown}` },
    });
    await askOnSlack(slack, '400.1', 'hello');
    const sessions = (await gateway.request('GET', '/api/sessions')).body.sessions;
    const slackKey = sessions.find((session: any) => session.channel === 'slack').key;
    const posts = slack.callsTo('chat.postMessage').length;
    expect((await carol('POST', path(slackKey, 'messages'), { text: 'not allowed' })).status).toBe(404);
    expect(slack.callsTo('chat.postMessage')).toHaveLength(posts);
    for (const [method, rest, body] of [
      ['GET', 'subagents/tree', undefined],
      ['POST', 'subagents/kill', { target: 'all' }],
      ['POST', 'subagents/steer', { target: '1', message: 'go' }],
    ] as const) {
      expect((await carol(method, path(mine, rest), body)).status).toBe(403);
    }
  });

  it("posts an owner's reply into another user's web chat session as the bot, never as that user", async () => {
    const { gateway, model } = await start();
    expect((await gateway.send('hi from bob', 'bob')).status).toBe(200);
    const bob = 'agent:main:webchat:direct:bob';
    const asked = model.received.length;
    const posted = await gateway.request('POST', path(bob, 'messages'), { text: '/approve abc' });
    expect(posted).toMatchObject({ status: 200, body: { sessionKey: bob, posted: true } });
    const entries = (await gateway.request('GET', path(bob, 'transcript'))).body.entries;
    expect(entries.at(-1)).toMatchObject({
      role: 'system',
      text: 'webchat:local (control UI): /approve abc',
      senderId: 'webchat:local',
    });
    // Nothing entered bob's session as bob: no user entry with the text, and no turn ran.
    expect(entries.filter((entry: any) => entry.role === 'user').map((entry: any) => entry.text)).toEqual([
      'hi from bob',
    ]);
    expect(model.received.length).toBe(asked);
  });

  it('answers 409 for a reply into a sub-agent session', async () => {
    const context = await start();
    const [spawned] = await spawnHanging(context, ['gamma']);
    const refused = await context.gateway.request('POST', path(spawned.childSessionKey, 'messages'), {
      text: 'hi child',
    });
    expect(refused).toMatchObject({ status: 409, body: { error: 'conflict' } });
    expect(refused.body.message).toContain('sub-agent session');
  });
});
