import { describe, expect, it } from 'vitest';
import { gate, startSessionScriptedModel, toolResults } from '../fakes/subagent-script.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * Suzumio's built-in WebUI entries (core, shell, web) and per-tool status, each through the real
 * Tools API of a running gateway whose agent (a scripted model) really called the tools.
 */

const MAIN = 'agent:main:webchat:direct:local';
const OPS = 'agent:ops:main';
const API = '/api/projects/default/tool-ui';
const SECRET_CONTENT = 'the file body must never reach the page';
const cleanups = cleanupAfterEach();

async function setup() {
  const { model, script, requestsOf } = await startSessionScriptedModel(cleanups);
  const gateway: TestGateway = await startTestGateway({
    config: {
      owners: ['webchat:local'],
      tools: { toolpacks: ['core', 'file', 'shell', 'web'] },
      approvals: { tools: { 'shell.exec': 'auto' } },
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-test-webui' } },
      agents: { main: { model: 'fake' }, ops: { model: 'fake', tools: ['messages.*'] } },
      scheduler: { tickMs: 50 },
      gateway: { drainTimeoutMs: 200 },
    },
  });
  cleanups.push(() => gateway.dispose());
  /** Has main call the tools in one round; resolves with their results. */
  async function mainCalls(calls: { name: string; arguments: Record<string, unknown> }[]) {
    let results: any[] = [];
    script(MAIN, { toolCalls: calls }, (request) => {
      results = toolResults(request).slice(-calls.length);
      return { text: 'done' };
    });
    expect((await gateway.send('use the tools')).status).toBe(200);
    return results;
  }
  const open = (toolpack: string, entry: string, input?: unknown) =>
    gateway.request('POST', `${API}/${toolpack}/${entry}`, input ?? {});
  return { gateway, script, mainCalls, open, requestsOf };
}

const TOOL_CALLS = [
  { name: 'file.write', arguments: { path: 'notes.txt', content: SECRET_CONTENT } },
  { name: 'file.read', arguments: { path: 'notes.txt' } },
  { name: 'shell.exec', arguments: { command: 'echo first\necho second' } },
  { name: 'shell.exec', arguments: { command: 'exit 3' } },
  { name: 'web.fetch', arguments: { url: 'http://127.0.0.1:9/private/page?token=query-secret#frag' } },
];

describe('core WebUI entries', () => {
  it('are listed with the local toolpacks’ entries: core’s six, then shell’s and web’s', async () => {
    const { gateway } = await setup();
    const listed = await gateway.request('GET', API);
    expect(listed.status).toBe(200);
    expect(listed.body.entries.map((entry: any) => `${entry.toolpack}/${entry.id}/${entry.kind}`)).toEqual([
      'core/project.stats/panel',
      'core/messages.conversation/panel',
      'core/messages.send/action',
      'core/coordination.signals/panel',
      'core/completion.report/panel',
      'core/file.activity/panel',
      'shell/shell.activity/panel',
      'web/web.activity/panel',
    ]);
    const send = listed.body.entries.find((entry: any) => entry.id === 'messages.send');
    expect(send.inputSchema.required).toEqual(['body']);
    expect(send.inputSchema.properties.priority.default).toBe('P2');
  });

  it('file, shell and web activity: counts, failures and summaries, never contents, queries or secrets', async () => {
    const { mainCalls, open } = await setup();
    const results = await mainCalls(TOOL_CALLS);
    expect(results[3]).toMatchObject({ ok: true, exitCode: 3 });
    expect(results[4]).toMatchObject({ ok: false });

    const files = await open('core', 'file.activity');
    expect(files.status).toBe(200);
    expect(files.body.output).toContain('- file.write: 1 (0 running, 1 completed, 0 failed)');
    expect(files.body.output).toContain('- file.read: 1 (0 running, 1 completed, 0 failed)');
    expect(files.body.output).toContain('main file.write: notes.txt');
    expect(JSON.stringify(files.body)).not.toContain(SECRET_CONTENT);

    const shell = await open('shell', 'shell.activity', { limit: 5 });
    expect(shell.body.output).toContain('- shell.exec: 2 (0 running, 1 completed, 1 failed)');
    expect(shell.body.output).toContain('main shell.exec: echo first …(+1 lines)');
    expect(shell.body.output).toContain('error: exit code 3');
    expect(shell.body.metadata.recent.map((call: any) => call.status)).toEqual(['failed', 'completed']);

    const web = await open('web', 'web.activity');
    expect(web.body.output).toContain('- web.fetch: 1 (0 running, 0 completed, 1 failed)');
    expect(web.body.output).toContain('http://127.0.0.1:9/private/page');
    expect(JSON.stringify(web.body)).not.toContain('query-secret');
    expect(JSON.stringify(web.body)).not.toContain('frag');
  });

  it('a command still running is shown running, in the panel and in the status', async () => {
    const { gateway, script, open } = await setup();
    script(MAIN, {
      toolCalls: [{ name: 'shell.exec', arguments: { command: 'sleep 20' } }],
    });
    const turn = gateway.send('run a long command');
    await expect
      .poll(async () => (await open('shell', 'shell.activity')).body.output, { timeout: 10_000 })
      .toContain('- shell.exec: 1 (1 running, 0 completed, 0 failed)');
    expect((await open('shell', 'shell.activity')).body.output).toMatch(
      /\[running\] main shell.exec: sleep 20/,
    );
    const status = await gateway.request('GET', '/api/projects/default/tool-status');
    expect(status.body.tools.find((tool: any) => tool.tool === 'shell.exec')).toMatchObject({
      runningCount: 1,
      lastStatus: 'running',
    });
    const stats = await open('core', 'project.stats');
    expect(stats.body.output).toContain('Tool calls: 1 (1 running, 0 failed)');
    // The stop at cleanup interrupts the turn and kills the command.
    void turn.catch(() => undefined);
  });

  it('a secret in a command or an error reaches no panel and no status', async () => {
    const { gateway, mainCalls, open } = await setup();
    await mainCalls([
      { name: 'shell.exec', arguments: { command: 'echo sk-test-webui; exit 1' } },
      { name: 'web.fetch', arguments: { url: 'http://sk-test-webui.invalid/' } },
    ]);
    const shown = [
      await open('shell', 'shell.activity'),
      await open('web', 'web.activity'),
      await gateway.request('GET', '/api/projects/default/tool-status'),
    ];
    for (const answer of shown) {
      expect(answer.status).toBe(200);
      expect(JSON.stringify(answer.body)).not.toContain('sk-test-webui');
    }
    expect(shown[0]?.body.output).toContain('main shell.exec: echo ');
  });

  it('per-tool status: registered tools, the agents allowed each, calls, failures and the latest call', async () => {
    const { gateway, mainCalls } = await setup();
    await mainCalls(TOOL_CALLS);
    const status = await gateway.request('GET', '/api/projects/default/tool-status');
    expect(status.status).toBe(200);
    const byName = new Map(status.body.tools.map((tool: any) => [tool.tool, tool]));
    expect(byName.get('shell.exec')).toMatchObject({
      source: 'toolpack shell',
      toolpackId: 'shell',
      toolpackKind: 'builtin',
      description: expect.stringContaining('command'),
      enabledForAgents: ['main'],
      callCount: 2,
      runningCount: 0,
      completedCount: 1,
      failedCount: 1,
      lastStatus: 'failed',
      lastAgentId: 'main',
      lastError: 'exit code 3',
    });
    expect(byName.get('messages.send')).toMatchObject({
      source: 'toolpack core',
      enabledForAgents: ['main', 'ops'],
      callCount: 0,
    });
    expect(byName.get('messages.send')).not.toHaveProperty('lastStatus');
    expect(byName.get('sessions_list')).toMatchObject({ source: 'builtin' });
    expect(byName.get('sessions_list')).not.toHaveProperty('toolpackId');
    expect((await gateway.request('GET', '/api/projects/other/tool-status')).status).toBe(404);
  });

  it('messages.send from the page wakes the agent; conversation and signals show it; bad input names the field', async () => {
    const { open, script, requestsOf } = await setup();
    const busy = gate();
    script(OPS, async () => {
      await busy.promise;
      return { text: 'handled' };
    });
    const sent = await open('core', 'messages.send', { recipient: 'ops', body: 'from the page' });
    expect(sent.status).toBe(200);
    expect(sent.body.output).toContain('Route: user -> ops');
    expect(sent.body.metadata.message).toMatchObject({ sender: 'user', recipient: 'ops', priority: 'P2' });
    await expect.poll(() => requestsOf(OPS).length, { timeout: 10_000 }).toBe(1);
    expect(JSON.stringify(requestsOf(OPS)[0]?.body.messages)).toContain('from the page');

    // The wake turn is still running: its signal is delivered, not yet forgotten.
    const signals = await open('core', 'coordination.signals', { targetAgent: 'ops' });
    expect(signals.status).toBe(200);
    expect(signals.body.output).toContain('Delivered: 1');
    expect(signals.body.output).toMatch(
      /\[P2\/delivered\] message\.created from message:user -> ops: message msg_[\w-]+, 13 chars/,
    );
    expect(signals.body.output).not.toContain('from the page');
    busy.open(undefined);

    const conversation = await open('core', 'messages.conversation', { agentA: 'ops', agentB: 'user' });
    expect(conversation.body.output).toContain('Messages: 1 (ops <-> user)');
    expect(conversation.body.output).toContain('P2 user -> ops');
    expect(conversation.body.output).toContain('from the page');
    const pairs = await open('core', 'messages.conversation', {});
    expect(pairs.body.output).toContain('Known participants: user, main, ops');
    expect(pairs.body.output).toMatch(/- user -> ops: 1 messages, last /);

    const refusals: [unknown, string][] = [
      [{ sender: 'mallory', body: 'x' }, '/sender'],
      [{ channel: '#nowhere', body: 'x' }, '/channel'],
      [{ recipient: 'opps', body: 'x' }, '/recipient'],
      [{ recipient: 'ops' }, '/body'],
      [{ recipient: 'ops', body: 'x', priority: 'P9' }, '/priority'],
    ];
    for (const [input, path] of refusals) {
      const refused = await open('core', 'messages.send', input);
      expect(refused.status, JSON.stringify(input)).toBe(400);
      expect(refused.body.path).toBe(path);
    }
    expect((await open('shell', 'shell.activity', { limit: 0 })).body).toMatchObject({ path: '/limit' });
  });

  it('project.stats counts agents, messages, signals, tool calls and toolpacks; completion.report says none yet', async () => {
    const { mainCalls, open } = await setup();
    await mainCalls([
      ...TOOL_CALLS.slice(0, 2),
      { name: 'messages.send', arguments: { recipient: 'user', body: 'the build is green' } },
    ]);
    const stats = await open('core', 'project.stats');
    expect(stats.status).toBe(200);
    expect(stats.body.output).toContain('Project: default');
    expect(stats.body.output).toContain('Agents: 2');
    expect(stats.body.output).toContain('Messages: 1');
    expect(stats.body.output).toContain('Tool calls: 3 (0 running, 0 failed)');
    expect(stats.body.output).toContain('Toolpacks: 4 (core, file, shell, web; 0 local)');
    expect(stats.body.metadata.stats).toMatchObject({ agentCount: 2, messageCount: 1, toolCallCount: 3 });

    const report = await open('core', 'completion.report');
    expect(report.status).toBe(200);
    expect(report.body.output).toContain('Submit status: not submitted');
  });

  it('completion.report shows the latest completion.submit: agent, time, path and report', async () => {
    const { gateway, mainCalls, open } = await setup();
    await mainCalls([
      { name: 'file.write', arguments: { path: 'reports/final.md', content: 'the full report' } },
      { name: 'completion.submit', arguments: { report: '# Done\n\nAll green.', path: 'reports/final.md' } },
    ]);
    const report = await open('core', 'completion.report');
    expect(report.status).toBe(200);
    expect(report.body.output).toMatch(/Submit status: submitted \(by main at \d{4}-\d\d-\d\dT/);
    expect(report.body.output).toContain('Submissions: 1');
    expect(report.body.output).toContain('Report path: /workspace/reports/final.md');
    expect(report.body.output).toContain('# Done\n\nAll green.');
    const status = await gateway.request('GET', '/api/projects/default/tool-status');
    expect(status.body.tools.find((tool: any) => tool.tool === 'completion.submit')).toMatchObject({
      callCount: 1,
      completedCount: 1,
      submittedReportPath: '/workspace/reports/final.md',
    });
    expect(report.body.metadata.latest).toMatchObject({
      agentId: 'main',
      path: '/workspace/reports/final.md',
    });
  });

  it('only the toolpacks tools.toolpacks names offer entries', async () => {
    const gateway = await startTestGateway({ config: { tools: { toolpacks: ['file', 'web'] } } });
    cleanups.push(() => gateway.dispose());
    const listed = await gateway.request('GET', API);
    expect(listed.body.entries.map((entry: any) => `${entry.toolpack}/${entry.id}`)).toEqual([
      'file/file.activity',
      'web/web.activity',
    ]);
    expect((await gateway.request('POST', `${API}/core/project.stats`, {})).status).toBe(404);
  });
});
