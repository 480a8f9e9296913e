import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { httpWithUsers, startTestGateway, type TestGateway } from '../helpers/gateway.js';

/**
 * Issue 34 item 1: every refusal names the role and what it lacks, also to a sender no person
 * lists (no `people` entry: the default role, `member`). Over the real HTTP path with the
 * sender's own sign-in token, the real router and tool loop, and a fake model.
 */

const TOKENS = {
  carol: 'carol-token-0123456789abcdef',
  dave: 'dave-token-0123456789abcdef',
} as const;

let gateway: TestGateway;
let model: FakeModelServer;

beforeAll(async () => {
  model = await startFakeOpenAIServer();
  gateway = await startTestGateway({
    config: {
      http: httpWithUsers(TOKENS),
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-refusals' } },
      agents: { main: { model: 'fake' }, ops: { model: 'fake' } },
      // Dave's web chat is the ops agent's, which the member role does not name.
      bindings: [{ agent: 'ops', match: { channel: 'webchat', chatId: 'dave' } }],
      roles: { member: { agents: ['main'] } },
      tools: { toolpacks: ['core', 'shell'] },
      approvals: { tools: { 'shell.exec': 'auto' } },
    },
  });
}, 60_000);

afterAll(async () => {
  await gateway?.dispose();
  await model?.close();
});

const as = (user: keyof typeof TOKENS, method: string, route: string, body?: unknown) =>
  gateway.request(method, route, body, TOKENS[user]);
const say = async (user: keyof typeof TOKENS, text: string): Promise<string> =>
  (await as(user, 'POST', '/api/webchat/messages', { text })).body.replies.at(-1)?.text;

describe('the refusals a sender no person lists reads', () => {
  it('name the default role and what it lacks: a tool, a command, a route, an agent, /usage', async () => {
    model.push({ toolCalls: [{ name: 'shell.exec', arguments: { command: 'echo pwned' } }] });
    model.push({ text: 'no luck' });
    expect(await say('carol', 'run echo')).toBe('no luck');
    const toolResult = model.requests
      .at(-1)
      ?.messages.filter((message: any) => message.role === 'tool')
      .at(-1)?.content;
    expect(toolResult).toBe(
      'Tool shell.exec refused: webchat:carol, role member may not call tool shell.exec: role member lacks it (roles.member.tools: *).',
    );

    expect(await say('carol', '/config get')).toBe(
      '/config refused: webchat:carol, role member may not run /config: role member lacks it (roles.member.commands: *).',
    );

    const api = await as('carol', 'GET', '/api/config');
    expect(api.status).toBe(403);
    expect(api.body.message).toMatch(
      /^webchat:carol, role member may not call GET \/api\/config: role member lacks it \(roles\.member\.routes: GET \/api\/me, /,
    );

    const requests = model.requests.length;
    expect(await say('dave', 'hello ops')).toBe(
      'Not sent to agent ops: webchat:dave, role member may not chat with agent ops: role member lacks it (roles.member.agents: main).',
    );
    expect(model.requests).toHaveLength(requests);

    expect(await say('carol', '/usage')).toMatch(
      /^Only your own usage \(webchat:carol\) is shown; role member sees its own only \(roles\.member\.sees: own\)\./,
    );
  });
});
