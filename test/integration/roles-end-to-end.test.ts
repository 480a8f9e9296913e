import { describe, expect, it } from 'vitest';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startGatewayForTest, startSlackForTest } from '../helpers/channels.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * Issue 34 item 1, end to end: a member's Slack message bound to an agent the role does not name
 * is refused through the real Bolt client against the fake Slack, naming the role, with no model
 * call; a runtime turn of an agent whose `runtimeAs` is a person id runs with that person's role
 * (an owner person's wake turn runs `shell.exec`, a member person's is refused it, naming the role).
 */

const cleanups = cleanupAfterEach();

const toolNames = (request: any): string[] =>
  (request?.tools ?? []).map((tool: any) => (tool.function.name as string).replaceAll('__', '.'));
const toolResults = (request: any): string[] =>
  request.messages.filter((message: any) => message.role === 'tool').map((message: any) => message.content);

describe('roles through a platform and a runtime turn', () => {
  it('refuses a member on Slack an agent the role does not name, naming the role, with no model call', async () => {
    const slack = await startSlackForTest(cleanups, { echoPosts: true });
    const model = await startFakeOpenAIServer();
    cleanups.push(() => model.close());
    await startGatewayForTest(cleanups, {
      config: {
        people: { bob: { role: 'member', identities: ['slack:U2'] } },
        roles: { member: { agents: ['main'] } },
        channels: {
          slack: { botToken: 'xoxb-roles', appToken: 'xapp-roles', apiUrl: slack.apiUrl, stream: false },
        },
        models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-roles-e2e' } },
        agents: { main: { model: 'fake' }, ops: { model: 'fake' } },
        bindings: [{ agent: 'ops', match: { channel: 'slack', chatId: 'COPS' } }],
      },
    });
    await slack.connected();
    const mention = async (channel: string, ts: string, text: string) => {
      await slack.deliver({
        type: 'message',
        channel,
        channel_type: 'channel',
        user: 'U2',
        text: `<@${slack.botUserId}> ${text}`,
        ts,
      });
      const reply = await slack.waitForCall('chat.postMessage', (call) => call.args.thread_ts === ts, 15_000);
      return String(reply.args.text);
    };

    expect(await mention('COPS', '300.1', 'restart the workers')).toBe(
      'Not sent to agent ops: bob (slack:U2), role member may not chat with agent ops: role member lacks it (roles.member.agents: main).',
    );
    expect(model.requests).toHaveLength(0);
    // The agent the role names answers Bob.
    expect(await mention('CGEN', '300.2', 'hello')).toBe('ok');
    expect(model.requests).toHaveLength(1);
  }, 60_000);

  it("runs a wake turn as runtimeAs's person: the owner's shell.exec runs, the member's is refused naming the role", async () => {
    const model = await startFakeOpenAIServer();
    cleanups.push(() => model.close());
    const gateway = await startGatewayForTest(cleanups, {
      config: {
        people: {
          ann: { role: 'owner', identities: ['webchat:ann'] },
          bob: { role: 'member', identities: ['slack:U2'] },
        },
        tools: { toolpacks: ['core', 'shell'] },
        models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-roles-e2e' } },
        agents: {
          main: { model: 'fake' },
          nightly: { model: 'fake', tools: ['*'], runtimeAs: 'ann' },
          helper: { model: 'fake', tools: ['*'], runtimeAs: 'bob' },
        },
      },
    });
    const wake = async (recipient: string) => {
      const woken = await gateway.request('POST', '/api/projects/default/tool-ui/core/messages.send', {
        recipient,
        body: 'run the check',
      });
      expect(woken.status).toBe(200);
    };

    model.push({ toolCalls: [{ name: 'shell.exec', arguments: { command: 'echo as-ann' } }] });
    model.push({ text: 'done' });
    await wake('nightly');
    await model.waitForRequests(2);
    expect(toolNames(model.requests[0])).toContain('shell.exec');
    expect(JSON.parse(toolResults(model.requests[1]).at(-1) ?? '{}')).toMatchObject({
      ok: true,
      stdout: 'as-ann\n',
    });

    model.push({ toolCalls: [{ name: 'shell.exec', arguments: { command: 'echo as-bob' } }] });
    model.push({ text: 'refused' });
    await wake('helper');
    await model.waitForRequests(4);
    expect(toolNames(model.requests[2])).not.toContain('shell.exec');
    expect(toolNames(model.requests[2])).toContain('messages.send');
    expect(toolResults(model.requests[3]).at(-1)).toBe(
      'Tool shell.exec refused: bob (slack:U2), role member may not call tool shell.exec: role member lacks it (roles.member.tools: *).',
    );
  }, 60_000);
});
