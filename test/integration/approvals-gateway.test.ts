import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeModelServer, FakeRequest } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { parseExposition } from '../helpers/prometheus.js';
import { cleanupAfterEach } from '../helpers/teardown.js';
import { openEvents } from '../helpers/webchat-events.js';

// Approvals through the real gateway, over the web chat's HTTP API with the text commands (the
// buttons of each platform are tested with it in slack-, discord- and webchat-approval tests).

const cleanups = cleanupAfterEach();
const SESSION = 'agent:main:webchat:direct:local';

async function setup(
  config: Record<string, unknown> = {},
): Promise<{ gateway: TestGateway; model: FakeModelServer }> {
  const model = await startFakeOpenAIServer();
  cleanups.push(() => model.close());
  const gateway = await startTestGateway({
    config: {
      models: {
        fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-approvals-test' },
      },
      agents: { main: { model: 'fake' } },
      tools: { toolpacks: ['core', 'shell'] },
      ...config,
    },
  });
  cleanups.push(() => gateway.dispose());
  return { gateway, model };
}

const shell = (command: string) => ({ toolCalls: [{ name: 'shell.exec', arguments: { command } }] });
/** The last tool result the model was sent, parsed. */
const lastToolResult = (request: FakeRequest) =>
  JSON.parse(request.body.messages.filter((message: any) => message.role === 'tool').at(-1).content);
const replyTexts = (events: { type: string; data: Record<string, unknown> }[]) =>
  events.filter((event) => event.type === 'reply').map((event) => String(event.data.text));

/** The code of the approval request posted to the web chat, once it is. */
async function requestCode(events: { type: string; data: Record<string, unknown> }[]): Promise<string> {
  let code = '';
  await expect
    .poll(() => {
      const request = replyTexts(events).find((text) => text.startsWith('Approval needed'));
      code = /\/approve ([A-Z2-9]{6})/.exec(request ?? '')?.[1] ?? '';
      return code;
    })
    .not.toBe('');
  return code;
}

async function auditEvents(gateway: TestGateway): Promise<string[]> {
  const text = await readFile(path.join(gateway.dir, 'data', 'approvals-audit.jsonl'), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line).event);
}

describe('approvals through the gateway', () => {
  it('pauses shell.exec until an approver says yes; a non-approver is refused; the command runs once', async () => {
    const { gateway, model } = await setup();
    const stream = await openEvents(gateway, 'local');
    model.push(shell('echo approved-run'));
    model.push((request) => ({ text: `ran: ${lastToolResult(request).stdout.trim()}` }));
    const turn = gateway.send('run the echo');
    const code = await requestCode(stream.events);
    const request = replyTexts(stream.events).find((text) => text.startsWith('Approval needed')) ?? '';
    expect(request).toContain('agent main wants to run shell.exec');
    expect(request).toContain('"command": "echo approved-run"');
    expect(model.requests).toHaveLength(1);

    const refused = await gateway.send(`/approve ${code}`, 'mallory');
    expect(refused.body.replies[0].text).toBe(
      `Refused: only webchat:local may decide ${code}; you are webchat:mallory.`,
    );
    const approved = await gateway.send(`/approve ${code}`);
    expect(approved.body.replies[0].text).toBe('Approved by webchat:local: shell.exec runs now.');
    expect((await turn).body.replies.at(-1).text).toBe('ran: approved-run');
    const again = await gateway.send(`/approve ${code}`);
    expect(again.body.replies[0].text).toBe(
      'Already decided. Approved by webchat:local: shell.exec runs now.',
    );
    expect(await auditEvents(gateway)).toEqual(['requested', 'refused', 'approved', 'used']);
    // The same events in /metrics, and the call that ran once.
    const metrics = parseExposition((await gateway.request('GET', '/metrics')).body);
    for (const event of ['requested', 'refused', 'approved', 'used'])
      expect(metrics.value('switchboard_approvals_total', { event })).toBe(1);
    expect(metrics.value('switchboard_tool_calls_total', { tool: 'shell.exec', outcome: 'ok' })).toBe(1);
  });

  it('a turn waiting for an approval gives its slot back: with one slot, another user is answered meanwhile', async () => {
    const { gateway, model } = await setup({
      owners: ['webchat:local'],
      session: { maxConcurrentTurns: 1 },
      routes: { '#ops': 'webchat:ops' },
    });
    const bobChat = await openEvents(gateway, 'bob');
    model.push({
      toolCalls: [{ name: 'messages.send', arguments: { channel: '#ops', body: 'deploy notes' } }],
    });
    model.push({ text: 'hello carol' });
    model.push((request) => ({ text: `posted: ${JSON.stringify(lastToolResult(request))}` }));
    const bob = gateway.send('post the notes to #ops', 'bob');
    const code = await requestCode(bobChat.events);
    // Bob's turn waits for an approver; the only turn slot answers Carol meanwhile.
    const carol = await gateway.send('hi', 'carol');
    expect(carol.body.replies.at(-1).text).toBe('hello carol');
    expect((await gateway.send(`/approve ${code}`)).body.replies[0].text).toContain(
      'Approved by webchat:local',
    );
    expect((await bob).body.replies.at(-1).text).toMatch(/^posted: \{"ok":true/);
    expect(model.requests).toHaveLength(3);
  });

  it('a denial is a tool result the model reads, and the command does not run', async () => {
    const { gateway, model } = await setup();
    const stream = await openEvents(gateway, 'local');
    model.push(shell('touch /workspace/should-not-exist'));
    model.push((request) => ({ text: `result: ${JSON.stringify(lastToolResult(request))}` }));
    const turn = gateway.send('make the file');
    const code = await requestCode(stream.events);
    const denied = await gateway.send(`/deny ${code} not today`);
    expect(denied.body.replies[0].text).toBe('Denied by webchat:local: shell.exec does not run (not today).');
    const reply = (await turn).body;
    expect(reply.replies.at(-1).text).toBe(
      'result: {"status":"denied","by":"webchat:local","reason":"not today"}',
    );
    const workspace = await readFile(
      path.join(gateway.dir, 'data', 'workspaces', 'main', 'should-not-exist'),
    ).catch(() => 'absent');
    expect(workspace).toBe('absent');
  });

  it("shows a model's config.patch as a diff and writes nothing until approved; a timeout denies it", async () => {
    const { gateway, model } = await setup({ approvals: { timeoutSeconds: 10 } });
    const stream = await openEvents(gateway, 'local');
    const before = await readFile(gateway.configPath, 'utf8');
    model.push({ toolCalls: [{ name: 'gateway', arguments: { action: 'config.get' } }] });
    model.push((request) => ({
      toolCalls: [
        {
          name: 'gateway',
          arguments: {
            action: 'config.patch',
            raw: '{ agents: { main: { displayName: "Patched Bot" } } }',
            baseHash: lastToolResult(request).result.hash,
            note: 'renamed',
          },
        },
      ],
    }));
    model.push((request) => ({ text: `result: ${JSON.stringify(lastToolResult(request))}` }));
    const turn = gateway.send('rename yourself');
    await requestCode(stream.events);
    const request = replyTexts(stream.events).find((text) => text.startsWith('Approval needed')) ?? '';
    expect(request).toContain('wants to run gateway');
    expect(request).toContain('+');
    expect(request).toContain('Patched Bot');
    expect(await readFile(gateway.configPath, 'utf8')).toBe(before);

    const reply = (await turn).body.replies.at(-1).text;
    expect(reply).toBe('result: {"status":"denied","by":"timeout","reason":"no decision within 10 s"}');
    expect(await readFile(gateway.configPath, 'utf8')).toBe(before);
    expect(replyTexts(stream.events)).toContain('Expired: nobody decided in time, so gateway does not run.');
    expect(await auditEvents(gateway)).toEqual(['requested', 'expired']);
  }, 30_000);

  it('keeps a pending approval across a restart: the code still decides it, and the command runs once', async () => {
    // A drain longer than the test's time: a turn waiting for a human must not hold the restart.
    const { gateway, model } = await setup({ gateway: { drainTimeoutMs: 60_000 } });
    const stream = await openEvents(gateway, 'local');
    model.push(shell('echo after-restart'));
    const turn = gateway.send('run it across a restart');
    turn.catch(() => {});
    const code = await requestCode(stream.events);
    // The resumed turn asks again with the same call: it waits on the same request.
    model.push(shell('echo after-restart'));
    model.push((request) => ({ text: `ran: ${lastToolResult(request).stdout.trim()}` }));
    await gateway.restart();
    await model.waitForRequests(2);
    const after = await openEvents(gateway, 'local');
    const approved = await gateway.send(`/approve ${code}`);
    expect(approved.body.replies[0].text).toBe('Approved by webchat:local: shell.exec runs now.');
    await expect.poll(() => replyTexts(after.events)).toContain('ran: after-restart');
    // One request, posted once, used once.
    expect(
      replyTexts([...stream.events, ...after.events]).filter((text) => text.startsWith('Approval needed')),
    ).toHaveLength(1);
    expect(await auditEvents(gateway)).toEqual(['requested', 'approved', 'used']);
    expect(gateway.logLines.some((line) => line.includes('stop timeout reached'))).toBe(false);
    const transcript = await gateway.request('GET', `/api/sessions/${SESSION}/transcript`);
    const results = transcript.body.entries.filter(
      (entry: { role: string; text: string }) =>
        entry.role === 'tool' && entry.text.includes('after-restart'),
    );
    expect(results).toHaveLength(1);
  });
});
