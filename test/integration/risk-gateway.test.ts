import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';
import { mcpServerEntry, mcpServersReady } from '../helpers/mcp-servers.js';
import { cleanupAfterEach } from '../helpers/teardown.js';
import { openEvents } from '../helpers/webchat-events.js';

// Risk classes through a real gateway: /status shows each agent's risk summary, a tool carrying
// `exec` asks an approver by default (config `approvals.tools` still wins), config `tools.risk`
// overrides a tool's classes, and a tool whose prerequisite is missing is hidden and said so.

const cleanups = cleanupAfterEach();

/** A tool of the gateway options with no `risky` flag: only its risk classes can make it ask. */
const runTool = {
  name: 'ops.run',
  description: 'Runs an operation.',
  parameters: Type.Object({}),
  risk: ['exec'] as const,
  execute: () => ({ ok: true, ran: true }),
};
const planTool = { ...runTool, name: 'plan.make', description: 'Makes a plan.', risk: undefined };

async function setup(
  config: Record<string, unknown> = {},
): Promise<{ gateway: TestGateway; model: FakeModelServer }> {
  const model = await startFakeOpenAIServer();
  cleanups.push(() => model.close());
  const gateway = await startTestGateway({
    tools: [runTool, planTool],
    config: {
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-risk-test' } },
      agents: { main: { model: 'fake' } },
      tools: { toolpacks: ['core', 'shell', 'web'] },
      ...config,
    },
  });
  cleanups.push(() => gateway.dispose());
  return { gateway, model };
}

const replyTexts = (events: { type: string; data: Record<string, unknown> }[]) =>
  events.filter((event) => event.type === 'reply').map((event) => String(event.data.text));

async function statusOf(gateway: TestGateway): Promise<string> {
  return String((await gateway.send('/status')).body.replies[0].text);
}

describe('risk through the gateway', () => {
  it('sums shell and an MCP filesystem server: exec from shell, write from the server', async () => {
    const dir = await makeTempDir('switchboard-risk-mcp-');
    cleanups.push(() => removeDir(dir));
    const { gateway } = await setup({
      agents: { main: { model: 'fake', tools: ['shell.*', 'mcp.files.*'] } },
      mcp: {
        servers: { files: { command: process.execPath, args: [mcpServerEntry('server-filesystem'), dir] } },
      },
    });
    // Its tools are registered once it is up (MCP servers connect in the background).
    await mcpServersReady(gateway, ['files']);
    const risk = /^Risk: (.*)$/m.exec(await statusOf(gateway))?.[1] ?? '';
    // read and write from the MCP server (any user's), network and exec from shell (owner-only tools).
    expect(risk.split(', ')).toEqual(['read', 'write', 'network (owner only)', 'exec (owner only)']);
  });

  it("/status shows the agent's risk summary: with shell it lists exec", async () => {
    const { gateway } = await setup({
      agents: { main: { model: 'fake', tools: ['shell.*', 'file.read', 'gateway'] } },
    });
    expect(await statusOf(gateway)).toMatch(
      /^Risk: read, write \(owner only\), network \(owner only\), exec \(owner only\), control-plane \(owner only\)$/m,
    );
    // The same summary on the health page's report.
    const status = await gateway.request('GET', '/api/status');
    expect(status.body.agents).toEqual([
      {
        id: 'main',
        models: 'fake',
        risk: ['read', 'write', 'network', 'exec', 'control-plane'],
        ownerOnly: ['write', 'network', 'exec', 'control-plane'],
        unavailable: [],
      },
    ]);
    const everything = await setup();
    const all = await statusOf(everything.gateway);
    // ops.run carries exec for every sender; messages.send and chat.attach carry messaging.
    expect(all).toMatch(/^Risk: read, write, network, exec, control-plane \(owner only\), messaging$/m);
  });

  it('an exec tool asks an approver by default, and approvals.tools overrides it', async () => {
    const { gateway, model } = await setup();
    const stream = await openEvents(gateway, 'local');
    model.push({ toolCalls: [{ name: 'ops.run', arguments: {} }] });
    model.push({ text: 'done' });
    const turn = gateway.send('run it');
    let code = '';
    await expect
      .poll(() => {
        const request = replyTexts(stream.events).find((text) => text.startsWith('Approval needed'));
        code = /\/approve ([A-Z2-9]{6})/.exec(request ?? '')?.[1] ?? '';
        return code;
      })
      .not.toBe('');
    expect(replyTexts(stream.events).join('\n')).toContain('agent main wants to run ops.run');
    await gateway.send(`/approve ${code}`);
    expect((await turn).body.replies.at(-1).text).toBe('done');

    const auto = await setup({ approvals: { tools: { 'ops.*': 'auto' } } });
    auto.model.push({ toolCalls: [{ name: 'ops.run', arguments: {} }] });
    auto.model.push({ text: 'done without asking' });
    expect((await auto.gateway.send('run it')).body.replies.at(-1).text).toBe('done without asking');
  });

  it('config tools.risk gives a tool exec: it asks, and the summary shows it', async () => {
    const { gateway, model } = await setup({
      agents: { main: { model: 'fake', tools: ['plan.*'] } },
      tools: { toolpacks: [], risk: { 'plan.*': ['write', 'exec'] } },
    });
    expect(await statusOf(gateway)).toMatch(/^Risk: write, exec$/m);
    const stream = await openEvents(gateway, 'local');
    model.push({ toolCalls: [{ name: 'plan.make', arguments: {} }] });
    model.push({ text: 'planned' });
    const turn = gateway.send('plan');
    await expect
      .poll(() => replyTexts(stream.events).some((text) => text.includes('wants to run plan.make')))
      .toBe(true);
    const code = /\/approve ([A-Z2-9]{6})/.exec(replyTexts(stream.events).join('\n'))?.[1];
    await gateway.send(`/approve ${code}`);
    expect((await turn).body.replies.at(-1).text).toBe('planned');
  });
});
