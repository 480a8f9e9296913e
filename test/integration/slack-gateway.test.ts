import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REDACTED } from '../../src/base/config/index.js';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import {
  eventCallback,
  type FakeSlack,
  type FakeSlackOptions,
  postSignedEvent,
  startFakeSlack,
} from '../fakes/fake-slack.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { REPO_ROOT } from '../helpers/process.js';

/**
 * Slack through the whole gateway: the real Bolt (Socket Mode) against the fake Slack, the router,
 * the session store and chat commands; owners are matched by Slack user id.
 */

let gateway: TestGateway | undefined;
let fake: FakeSlack | undefined;
let model: FakeModelServer | undefined;
afterEach(async () => {
  await gateway?.dispose();
  await fake?.close();
  await model?.close();
  gateway = undefined;
  fake = undefined;
  model = undefined;
});

const BOT_TOKEN = 'xoxb-gateway-test';
/** The fake Slack's team id (`startFakeSlack` default), which Bolt's events carry. */
const FAKE_TEAM_ID = 'T1';
const SIGNING_SECRET = 'gateway-signing-secret-77';

const mention = (ts: string, text: string, extra: Record<string, unknown> = {}) => ({
  type: 'message',
  channel: 'C1',
  channel_type: 'channel',
  user: 'U1',
  text: `<@UBOT> ${text}`,
  ts,
  ...extra,
});

async function setup(
  slack: Record<string, unknown> = {},
  config: Record<string, unknown> = {},
  fakeOptions: FakeSlackOptions = {},
) {
  fake = await startFakeSlack({ echoPosts: true, ...fakeOptions });
  gateway = await startTestGateway({
    config: {
      owners: ['webchat:local', 'slack:U1'],
      channels: {
        slack: {
          botToken: BOT_TOKEN,
          appToken: 'xapp-gateway-test',
          apiUrl: fake.apiUrl,
          ...slack,
        },
      },
      ...config,
    },
  });
  if (slack.mode !== 'http') await fake.connected();
  return { fake, gateway };
}

describe('Slack through the gateway', () => {
  it('answers a mention in its thread, knows the owner by Slack id, and keeps the thread as the session', async () => {
    const { fake, gateway } = await setup();
    await fake.deliver(mention('20.1', '/whoami'));
    const whoami = await fake.waitForCall(
      'chat.postMessage',
      (call) => call.args.text?.startsWith('You are') === true,
    );
    expect(whoami.args).toMatchObject({
      channel: 'C1',
      thread_ts: '20.1',
      text: 'You are slack:U1 (owner).',
    });

    await fake.deliver(mention('20.2', 'hello there', { user: 'U2' }));
    const reply = await fake.waitForCall('chat.postMessage', (call) => call.args.thread_ts === '20.2');
    expect(reply.args.text).toContain('No model is configured');
    const sessions = await gateway.request('GET', '/api/sessions');
    expect(sessions.body.sessions.map((session: any) => session.key)).toContain(
      'agent:main:slack:channel:C1:thread:20.2',
    );
    // The eyes reaction marked the turn and was taken off after it.
    await fake.waitForCall('reactions.remove', (call) => call.args.timestamp === '20.2');
  });

  it('posts the restart note in the thread where the owner asked for the restart', async () => {
    const { fake, gateway } = await setup();
    await fake.deliver(mention('30.1', '/restart back in a moment'));
    await fake.waitForCall(
      'chat.postMessage',
      (call) => call.args.text?.startsWith('Restarting in') === true,
    );
    await expect.poll(() => gateway.host.restarts, { timeout: 15_000 }).toBe(1);
    const note = await fake.waitForCall(
      'chat.postMessage',
      (call) => call.args.text === 'Gateway restarted (restart): back in a moment',
      15_000,
    );
    expect(note.args).toMatchObject({ channel: 'C1', thread_ts: '30.1' });
  });

  it('keeps running without Slack when Slack cannot be reached (after a few quick retries)', async () => {
    fake = await startFakeSlack();
    gateway = await startTestGateway({
      config: {
        channels: {
          slack: { botToken: 'xoxb-wrong', appToken: 'xapp-x', apiUrl: 'http://127.0.0.1:9/api/' },
        },
      },
    });
    expect(gateway.logLines.some((line) => line.includes('slack could not start'))).toBe(true);
    expect((await gateway.send('/whoami')).body.replies[0].text).toContain('webchat:local');
  }, 30_000);

  it('answers /config get to an owner with secrets redacted, and tells anyone else it is for owners', async () => {
    const { fake } = await setup();
    await fake.deliver(mention('40.1', '/config get channels.slack'));
    const owner = await fake.waitForCall('chat.postMessage', (call) => call.args.thread_ts === '40.1');
    expect(owner.args.text).toContain('channels.slack:');
    expect(owner.args.text).toContain(`"botToken": "${REDACTED}"`);
    expect(owner.args.text).toContain(`"apiUrl": "${fake.apiUrl}"`);

    await fake.deliver(mention('40.2', '/config get', { user: 'U2' }));
    const other = await fake.waitForCall('chat.postMessage', (call) => call.args.thread_ts === '40.2');
    expect(other.args.text).toBe(
      '/config refused: slack:U2, role member may not run /config: role member lacks it (roles.member.commands: *).',
    );
    expect(JSON.stringify(fake.callsTo('chat.postMessage'))).not.toContain(BOT_TOKEN);
  });

  it("carries out an owner's config.patch through the model, restarts, and posts the note in that thread", async () => {
    model = await startFakeOpenAIServer();
    const { fake, gateway } = await setup(
      {},
      {
        models: {
          fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-slack-patch-01' },
        },
        agents: { main: { model: 'fake' } },
        // The edit's path through Slack is under test; its approval in approvals*.test.ts.
        approvals: { tools: { gateway: 'auto' } },
      },
    );
    const lastResult = (request: any) =>
      JSON.parse(request.body.messages.filter((message: any) => message.role === 'tool').at(-1).content);
    model.push({ toolCalls: [{ name: 'gateway', arguments: { action: 'config.get' } }] });
    model.push((request) => ({
      toolCalls: [
        {
          name: 'gateway',
          arguments: {
            action: 'config.patch',
            raw: '{ agents: { main: { displayName: "Ops Bot" } } }',
            baseHash: lastResult(request).result.hash,
            note: 'Renamed the agent to Ops Bot.',
            restartDelayMs: 0,
          },
        },
      ],
    }));
    model.push((request) => ({ text: `Patched ${lastResult(request).result.changedPaths.join(', ')}.` }));

    await fake.deliver(mention('50.1', 'please call yourself Ops Bot'));
    // The answer replaces the thread's tool status line (streaming), so it may be an update.
    const answer = await fake.waitForMessage(
      (message) => message.text === 'Patched agents.main.displayName.',
    );
    expect(answer).toMatchObject({ channel: 'C1', threadTs: '50.1' });
    await expect
      .poll(() => gateway.host.restarts === 1 && gateway.host.loaded?.config.agents.main?.displayName, {
        timeout: 15_000,
      })
      .toBe('Ops Bot');
    const note = await fake.waitForCall(
      'chat.postMessage',
      (call) => call.args.text === 'Gateway restarted (config-patch): Renamed the agent to Ops Bot.',
      15_000,
    );
    expect(note.args).toMatchObject({ channel: 'C1', thread_ts: '50.1' });
    // The owner's Slack id is what the audit names, not a display name.
    const audit = await readFile(path.join(gateway.dir, 'data/config-audit.jsonl'), 'utf8');
    expect(JSON.parse(audit.trim())).toMatchObject({
      actor: 'slack:U1',
      via: 'tool',
      action: 'config.patch',
    });
    // Bolt reconnected after the restart: the second Socket Mode connection is the live one.
    expect(fake.callsTo('apps.connections.open')).toHaveLength(2);
    expect(fake.sockets).toBe(1);
  });

  it('posts a scheduled message to a named Slack route', async () => {
    model = await startFakeOpenAIServer();
    const { fake, gateway } = await setup(
      {},
      {
        tools: { toolpacks: [{ path: path.join(REPO_ROOT, 'toolpacks/scheduler'), id: 'scheduler' }] },
        routes: { '#ops': 'slack:C0123' },
        models: {
          fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-slack-route-01' },
        },
        agents: { main: { model: 'fake', tools: ['schedule.*'] } },
        scheduler: { tickMs: 50 },
      },
    );
    model.push({
      toolCalls: [
        { name: 'schedule.once', arguments: { channel: '#ops', afterMs: 100, body: 'deploy window opens' } },
      ],
    });
    model.push({ text: 'scheduled' });
    expect((await gateway.send('tell #ops the deploy window opens')).body.replies.at(-1).text).toBe(
      'scheduled',
    );
    const post = await fake.waitForCall('chat.postMessage', (call) => call.args.channel === 'C0123');
    expect(post.args.text).toBe('scheduler: deploy window opens');
    expect(post.args.thread_ts).toBeUndefined();
  });

  it('serves HTTP mode on its own server at /slack/events: signed events without the bearer token, forged ones refused', async () => {
    const { fake, gateway } = await setup({
      mode: 'http',
      appToken: undefined,
      signingSecret: SIGNING_SECRET,
    });
    const url = `${gateway.url}/slack/events`;
    const body = eventCallback(mention('60.1', 'hello over http'), 'EvGateway1');
    expect(await postSignedEvent(url, body, SIGNING_SECRET)).toBe(200);
    const reply = await fake.waitForCall('chat.postMessage', (call) => call.args.thread_ts === '60.1');
    expect(reply.args.text).toContain('No model is configured');
    // A retry of the same event is acknowledged and not answered again.
    expect(await postSignedEvent(url, body, SIGNING_SECRET, { retryNum: 1 })).toBe(200);

    const forged = eventCallback(mention('60.2', '/config get'), 'EvGateway2');
    expect(await postSignedEvent(url, forged, 'not-the-secret')).toBe(401);
    const old = Math.floor(Date.now() / 1000) - 600;
    expect(await postSignedEvent(url, forged, SIGNING_SECRET, { timestamp: old })).toBe(401);
    // Signed for tomorrow (a captured future request replayed later): outside ±5 minutes too.
    const tomorrow = Math.floor(Date.now() / 1000) + 24 * 3600;
    expect(await postSignedEvent(url, forged, SIGNING_SECRET, { timestamp: tomorrow })).toBe(401);
    const soon = Math.floor(Date.now() / 1000) + 400;
    expect(await postSignedEvent(url, forged, SIGNING_SECRET, { timestamp: soon })).toBe(401);
    // The rest of the API still needs the token.
    expect((await fetch(`${gateway.url}/api/sessions`)).status).toBe(401);
    await postSignedEvent(url, eventCallback(mention('60.3', 'sentinel'), 'EvGateway3'), SIGNING_SECRET);
    await fake.waitForCall('chat.postMessage', (call) => call.args.thread_ts === '60.3');
    expect(fake.callsTo('chat.postMessage').map((call) => call.args.thread_ts)).toEqual(['60.1', '60.3']);
    // Restarted, the new Slack adapter's listener serves the same path.
    await gateway.restart();
    const afterRestart = eventCallback(mention('60.4', 'after the restart'), 'EvGateway4');
    expect(await postSignedEvent(`${gateway.url}/slack/events`, afterRestart, SIGNING_SECRET)).toBe(200);
    await fake.waitForCall('chat.postMessage', (call) => call.args.thread_ts === '60.4');
  });

  it('routes by bindings: a Slack channel to its agent, the rest of the team to another', async () => {
    const { fake, gateway } = await setup(
      {},
      {
        agents: { main: {}, ops: {}, team: {} },
        bindings: [
          { agent: 'team', match: { channel: 'slack', teamId: FAKE_TEAM_ID } },
          { agent: 'ops', match: { channel: 'slack', teamId: FAKE_TEAM_ID, chatId: 'C9' } },
        ],
      },
    );
    await fake.deliver(mention('80.1', 'status please', { channel: 'C9' }));
    await fake.waitForCall('chat.postMessage', (call) => call.args.thread_ts === '80.1');
    await fake.deliver(mention('80.2', 'status please', { channel: 'C2' }));
    await fake.waitForCall('chat.postMessage', (call) => call.args.thread_ts === '80.2');
    const keys = (await gateway.request('GET', '/api/sessions')).body.sessions.map(
      (session: any) => session.key,
    );
    expect(keys).toEqual(
      expect.arrayContaining([
        'agent:ops:slack:channel:C9:thread:80.1',
        'agent:team:slack:channel:C2:thread:80.2',
      ]),
    );
  });

  it('waits out a rate-limited post and posts it once; a refused post is logged with its route and the gateway goes on', async () => {
    const { fake, gateway } = await setup();
    fake.rateLimit('chat.postMessage', 1, 1);
    await fake.deliver(mention('90.1', '/whoami'));
    const posts = (ts: string) =>
      fake.callsTo('chat.postMessage').filter((call) => call.args.thread_ts === ts);
    // The first attempt got the 429; Slack's client waited Retry-After and sent it again.
    await expect.poll(() => posts('90.1').length, { timeout: 10_000 }).toBe(2);

    fake.failFor('chat.postMessage', 'CGONE', 'channel_not_found');
    await fake.deliver(mention('91.1', '/whoami', { channel: 'CGONE' }));
    await expect
      .poll(() => gateway.logLines.find((line) => line.includes('slack post failed')), { timeout: 10_000 })
      .toContain('"chatId":"CGONE"');
    await fake.deliver(mention('92.1', '/whoami'));
    await fake.waitForCall('chat.postMessage', (call) => call.args.thread_ts === '92.1');
    expect(posts('90.1')).toHaveLength(2);
    expect(posts('92.1')).toHaveLength(1);
  });

  it("refuses a config edit whose Slack token Slack refuses, before writing it: the owner's channel stays up", async () => {
    const { fake, gateway } = await setup({}, {}, { botToken: BOT_TOKEN });
    const before = await readFile(gateway.configPath, 'utf8');
    await fake.deliver(mention('95.1', '/config patch {"channels":{"slack":{"botToken":"xoxb-typo-9999"}}}'));
    const refusal = await fake.waitForCall('chat.postMessage', (call) => call.args.thread_ts === '95.1');
    expect(refusal.args.text).toContain(
      'channels.slack.botToken was refused by Slack (invalid_auth); check the token',
    );
    expect(refusal.args.text).not.toContain('xoxb-typo-9999');
    expect(await readFile(gateway.configPath, 'utf8')).toBe(before);
    expect(gateway.host.restarts).toBe(0);

    // An edit that leaves the Slack connection alone does not ask Slack at all.
    const authCalls = fake.callsTo('auth.test').length;
    await fake.deliver(mention('95.2', '/config patch {"agents":{"main":{"displayName":"Ops"}}}'));
    const changed = await fake.waitForCall('chat.postMessage', (call) => call.args.thread_ts === '95.2');
    expect(changed.args.text).toMatch(/^Changed agents\. Restarting/);
    expect(fake.callsTo('auth.test')).toHaveLength(authCalls);
  });
});
