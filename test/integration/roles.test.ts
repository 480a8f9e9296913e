import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { httpWithUsers, startTestGateway, type TestGateway } from '../helpers/gateway.js';

/**
 * Issue 34 item 1: roles on every surface, over the real HTTP path with each person's own sign-in
 * token, the real tool loop and a fake model: a member cannot see or call shell.exec or gateway,
 * run /config, open the Config page or its API, or read another person's session; an operator can
 * restart but not edit the config; a viewer reads Sessions but does not post; each refusal names
 * the role and what it lacks.
 */

const TOKENS = {
  ann: 'ann-token-0123456789abcdef',
  sam: 'sam-token-0123456789abcdef',
  bob: 'bob-token-0123456789abcdef',
  val: 'val-token-0123456789abcdef',
} as const;
type Person = keyof typeof TOKENS;

let gateway: TestGateway;
let model: FakeModelServer;

beforeAll(async () => {
  model = await startFakeOpenAIServer();
  gateway = await startTestGateway({
    config: {
      http: httpWithUsers(TOKENS),
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-roles' } },
      agents: { main: { model: 'fake' } },
      tools: { toolpacks: ['core', 'shell'] },
      approvals: { tools: { 'shell.exec': 'auto', gateway: 'auto' } },
      commands: { restart: true },
      people: {
        ann: { role: 'owner', identities: ['webchat:ann'] },
        sam: { role: 'operator', identities: ['webchat:sam'], displayName: 'Sam (on call)' },
        bob: { role: 'member', identities: ['webchat:bob'] },
        val: { role: 'viewer', identities: ['webchat:val'] },
      },
    },
  });
}, 60_000);

afterAll(async () => {
  await gateway?.dispose();
  await model?.close();
});

/** A request signed in as the person, with their own token. */
const as = (person: Person, method: string, route: string, body?: unknown) =>
  gateway.request(method, route, body, TOKENS[person]);

const say = (person: Person, text: string) => as(person, 'POST', '/api/webchat/messages', { text });
/** The tool names a model request (its body, as the fake keeps it) offered; `__` on the wire is `.`. */
const offered = (request: any) =>
  (request?.tools ?? []).map((tool: any) => (tool.function.name as string).replaceAll('__', '.'));
const lastToolResult = (request: any) =>
  request?.messages.filter((message: any) => message.role === 'tool').at(-1)?.content as string;

describe('roles on every surface', () => {
  it('does not offer a member shell.exec or gateway, and refuses a forced call naming the role', async () => {
    model.push({ toolCalls: [{ name: 'shell.exec', arguments: { command: 'echo pwned' } }] });
    model.push({ text: 'no luck' });
    const sent = await say('bob', 'run echo');
    expect(sent.status).toBe(200);
    const [first, second] = model.requests.slice(-2);
    expect(offered(first)).not.toContain('shell.exec');
    expect(offered(first)).not.toContain('gateway');
    expect(offered(first)).toContain('session_status');
    expect(offered(first)).toContain('file.read');
    expect(lastToolResult(second)).toBe(
      'Tool shell.exec refused: bob (webchat:bob), role member may not call tool shell.exec: role member lacks it (roles.member.tools: *).',
    );
    expect(JSON.stringify(second)).not.toContain('pwned\\n');
  });

  it('offers the owner both, and runs the owner’s shell.exec', async () => {
    model.push({ toolCalls: [{ name: 'shell.exec', arguments: { command: 'echo owner-ran' } }] });
    model.push({ text: 'done' });
    await say('ann', 'run echo');
    const [first, second] = model.requests.slice(-2);
    expect(offered(first)).toEqual(expect.arrayContaining(['shell.exec', 'gateway']));
    expect(lastToolResult(second)).toContain('owner-ran');
  });

  it('lets an operator restart through the gateway tool but not patch the config', async () => {
    model.push({ toolCalls: [{ name: 'gateway', arguments: { action: 'config.get' } }] });
    model.push({ text: 'refused' });
    await say('sam', 'show me the config');
    const [first, second] = model.requests.slice(-2);
    expect(offered(first)).toEqual(expect.arrayContaining(['shell.exec', 'gateway']));
    expect(lastToolResult(second)).toBe(
      'Tool gateway refused: sam (webchat:sam), role operator may not call tool gateway (config.get): role operator lacks it (roles.operator.tools: *, shell.exec, gateway, !gateway:config.*).',
    );
    const restarts = gateway.host.restarts;
    const restarted = await say('sam', '/restart');
    expect(restarted.body.replies[0].text).not.toMatch(/refused|owners only/);
    await expect.poll(() => gateway.host.restarts, { timeout: 20_000 }).toBe(restarts + 1);
    await expect.poll(() => gateway.host.loaded !== undefined, { timeout: 20_000 }).toBe(true);
    const config = await say('sam', '/config get');
    expect(config.body.replies[0].text).toBe(
      '/config refused: sam (webchat:sam), role operator may not run /config: role operator lacks it (roles.operator.commands: *, restart, confirm, update, !config, !rescue).',
    );
  }, 60_000);

  it('refuses a member /config and the config API, naming the role and what it lacks', async () => {
    const command = await say('bob', '/config get');
    expect(command.body.replies[0].text).toBe(
      '/config refused: bob (webchat:bob), role member may not run /config: role member lacks it (roles.member.commands: *).',
    );
    for (const person of ['bob', 'sam', 'val'] as const) {
      const api = await as(person, 'GET', '/api/config');
      expect(api.status).toBe(403);
      expect(api.body.message).toMatch(
        new RegExp(
          `^${person} \\(webchat:${person}\\), role \\w+ may not call GET /api/config: role \\w+ lacks it \\(roles\\.\\w+\\.routes: `,
        ),
      );
    }
    expect((await as('ann', 'GET', '/api/config')).status).toBe(200);
  });

  it('shows each role its pages: the Config page to the owner only, Sessions to the viewer, Chat to the member', async () => {
    const pages = async (person: Person) => (await as(person, 'GET', '/api/me')).body;
    expect(await pages('ann')).toMatchObject({
      role: 'owner',
      person: 'ann',
      // Setup (issue 33 item 1) writes the config and secrets: the owner's only, like Config.
      pages: [
        'chat',
        'sessions',
        'session',
        'approvals',
        'tools',
        'schedules',
        'logs',
        'config',
        'health',
        'people',
        'setup',
      ],
    });
    expect(await pages('sam')).toMatchObject({
      role: 'operator',
      pages: ['chat', 'sessions', 'session', 'approvals', 'tools', 'schedules', 'logs', 'health'],
    });
    expect(await pages('bob')).toMatchObject({ role: 'member', pages: ['chat', 'approvals'] });
    expect(await pages('val')).toMatchObject({
      role: 'viewer',
      pages: ['sessions', 'session', 'approvals', 'tools', 'schedules', 'logs', 'health'],
    });
  });

  it('keeps a member out of another person’s session; a viewer reads it but cannot post', async () => {
    const annSession = 'agent:main:webchat:direct:ann';
    const read = await as('bob', 'GET', `/api/sessions/${annSession}/transcript`);
    expect(read.status).toBe(403);
    expect(read.body.message).toMatch(
      /role member may not call GET \/api\/sessions\/:key\/transcript: role member lacks it/,
    );
    const post = await as('bob', 'POST', `/api/sessions/${annSession}/messages`, { text: 'hi' });
    expect(post.status).toBe(404);

    const list = await as('val', 'GET', '/api/sessions');
    expect(list.status).toBe(200);
    expect(list.body.sessions.map((session: any) => session.key)).toContain(annSession);
    expect((await as('val', 'GET', `/api/sessions/${annSession}/transcript`)).status).toBe(200);
    const viewerPost = await as('val', 'POST', `/api/sessions/${annSession}/messages`, { text: 'hi' });
    expect(viewerPost.status).toBe(403);
    expect(viewerPost.body.message).toMatch(
      /^val \(webchat:val\), role viewer may not call POST \/api\/sessions\/:key\/messages: role viewer lacks it \(roles.viewer.routes: GET \*/,
    );
    const chat = await as('val', 'POST', '/api/webchat/messages', { text: 'hello' });
    expect(chat.status).toBe(403);
    expect(chat.body.message).toMatch(/role viewer may not call POST \/api\/webchat\/messages/);
  });

  it('says who you are on /whoami, with the role', async () => {
    expect((await say('bob', '/whoami')).body.replies[0].text).toBe(
      'You are bob (webchat:bob), role member: Chat with the agents the role names; their own sessions and usage only.',
    );
  });
});
