import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

/**
 * `agents.<id>.runtimeAs` (issue 35): an agent's runtime turns (wake turns) run as the named identity,
 * so owner-only tools are offered when it is an owner, and a risky call asks nobody unless the
 * approvals policy says `ask` (a Suzumio-style project: agents run shell and post to channels alone).
 */

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.dispose();
  gateway = undefined;
});

const toolNames = (request: any): string[] =>
  (request.tools ?? []).map((tool: any) => tool.function.name.replaceAll('__', '.'));

async function start(
  model: { url: string },
  ops: Record<string, unknown>,
  approvals: Record<string, unknown> = {},
) {
  gateway = await startTestGateway({
    config: {
      owners: ['webchat:local'],
      tools: { toolpacks: ['core', 'shell'] },
      routes: { '#ops': 'webchat:local' },
      models: {
        fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-test-runtime' },
      },
      agents: { main: { model: 'fake' }, ops: { model: 'fake', tools: ['*'], ...ops } },
      approvals,
    },
  });
  const woken = await gateway.request('POST', '/api/projects/default/tool-ui/core/messages.send', {
    recipient: 'ops',
    body: 'run the check',
  });
  expect(woken.status).toBe(200);
  return gateway;
}

describe('agents.<id>.runtimeAs', () => {
  it("runs an owner's wake turn: shell.exec offered and run, a channel post sent, no approver asked", async () => {
    const model = await startFakeOpenAIServer();
    try {
      model.push({ toolCalls: [{ name: 'shell.exec', arguments: { command: 'echo checked-out' } }] });
      model.push({
        toolCalls: [{ name: 'messages.send', arguments: { channel: '#ops', body: 'check done' } }],
      });
      model.push({ text: 'done' });
      const started = await start(model, { runtimeAs: 'webchat:local' });
      await model.waitForRequests(3);
      expect(toolNames(model.requests[0])).toContain('shell.exec');
      const results = model.requests[2].messages
        .filter((message: any) => message.role === 'tool')
        .map((message: any) => JSON.parse(message.content));
      expect(results).toEqual([
        expect.objectContaining({ ok: true, stdout: 'checked-out\n' }),
        expect.objectContaining({ ok: true }),
      ]);
      const approvals = await started.request('GET', '/api/approvals');
      expect(JSON.stringify(approvals.body)).not.toContain('shell.exec');
    } finally {
      await model.close();
    }
  });

  it('without it, a wake turn is offered no owner-only tool', async () => {
    const model = await startFakeOpenAIServer();
    try {
      model.push({ text: 'nothing to do' });
      await start(model, {});
      await model.waitForRequests(1);
      expect(toolNames(model.requests[0])).not.toContain('shell.exec');
      expect(toolNames(model.requests[0])).toContain('messages.send');
    } finally {
      await model.close();
    }
  });
});
