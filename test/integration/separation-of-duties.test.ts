import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeModelServer, FakeRequest } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { httpWithUsers, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { cleanupAfterEach } from '../helpers/teardown.js';
import { openEvents, type StreamEvent } from '../helpers/webchat-events.js';

/**
 * Issue 34 item 2: with `approvals.separateDuties`, the person whose turn made a call cannot
 * approve it by any path (the /approve command, the request's button, the Approvals page, a
 * forged button value), whatever their role; another approver can; with none, the request says so
 * and is denied when it times out. The audit records requester and approver. Real HTTP with each
 * person's own token, the real tool loop, a fake model.
 */

const cleanups = cleanupAfterEach();
const TOKENS: Record<string, string> = {
  ann: 'ann-token-0123456789abcdef',
  raj: 'raj-token-0123456789abcdef',
};

async function setup(
  config: Record<string, unknown>,
): Promise<{ gateway: TestGateway; model: FakeModelServer }> {
  const model = await startFakeOpenAIServer();
  cleanups.push(() => model.close());
  const gateway = await startTestGateway({
    config: {
      http: httpWithUsers(TOKENS),
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-duties' } },
      agents: { main: { model: 'fake' } },
      tools: { toolpacks: ['core', 'shell'] },
      ...config,
    },
  });
  cleanups.push(() => gateway.dispose());
  return { gateway, model };
}

/** A request signed in as the person, with their own token. */
const as = (gateway: TestGateway, person: string, method: string, route: string, body?: unknown) =>
  gateway.request(method, route, body, TOKENS[person]);

const shell = (command: string) => ({ toolCalls: [{ name: 'shell.exec', arguments: { command } }] });
/** The last tool result a model request (as a step function gets it) carries, parsed. */
const lastToolResult = (request: FakeRequest) =>
  JSON.parse(request.body.messages.filter((message: any) => message.role === 'tool').at(-1).content);

/** The approval request posted into the chat, once it is: its text and button values. */
async function posted(
  events: StreamEvent[],
): Promise<{ text: string; code: string; buttons: Record<string, string> }> {
  await expect.poll(() => events.some((event) => Array.isArray(event.data.actions))).toBe(true);
  const event = events.find((candidate) => Array.isArray(candidate.data.actions));
  const text = String(event?.data.text);
  const buttons = Object.fromEntries(
    ((event?.data.actions ?? []) as { label: string; value: string }[]).map((action) => [
      action.label,
      action.value,
    ]),
  );
  return { text, code: /\/approve ([A-Z2-9]{6})/.exec(text)?.[1] ?? '', buttons };
}

async function audit(gateway: TestGateway): Promise<any[]> {
  const text = await readFile(path.join(gateway.dir, 'data', 'approvals-audit.jsonl'), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

describe('separation of duties', () => {
  it("an owner's own shell.exec cannot be approved by that owner by any path; another owner can", async () => {
    const { gateway, model } = await setup({
      owners: [],
      people: {
        ann: { role: 'owner', identities: ['webchat:ann'] },
        raj: { role: 'owner', identities: ['webchat:raj'] },
      },
      approvals: { separateDuties: true, approvers: ['role:owner'] },
    });
    const stream = await openEvents({ url: gateway.url, token: TOKENS.ann as string }, 'ann');
    model.push(shell('echo ann-ran'));
    model.push((request) => ({ text: `ran: ${lastToolResult(request).stdout.trim()}` }));
    const turn = as(gateway, 'ann', 'POST', '/api/webchat/messages', { text: 'run the echo' });
    const request = await posted(stream.events);
    expect(request.text).toContain(
      'Separation of duties: webchat:ann made this call and cannot approve it; approvers: webchat:raj.',
    );
    const refusal = `webchat:ann made this call, and with separation of duties (approvals.separateDuties) another approver must decide ${request.code}`;

    const typed = await as(gateway, 'ann', 'POST', '/api/webchat/messages', {
      text: `/approve ${request.code}`,
    });
    expect(typed.body.replies[0].text).toBe(`Refused: ${refusal}.`);
    const clicked = await as(gateway, 'ann', 'POST', '/api/webchat/action', {
      action: request.buttons.Approve,
    });
    expect(clicked.body.text).toBe(`Refused: ${refusal}.`);
    const forged = (request.buttons.Approve ?? '').replace(':approve:', ':always:');
    expect(forged).not.toBe(request.buttons.Approve);
    const forgedClick = await as(gateway, 'ann', 'POST', '/api/webchat/action', { action: forged });
    expect(forgedClick.body.text).toBe(`Refused: ${refusal}.`);
    const inbox = await as(gateway, 'ann', 'GET', '/api/approvals');
    const id = inbox.body.open[0]?.id as string;
    const page = await as(gateway, 'ann', 'POST', `/api/approvals/${id}`, { decision: 'approve' });
    expect(page.status).toBe(403);
    expect(page.body.message).toBe(refusal);
    expect(model.requests).toHaveLength(1);

    const approved = await as(gateway, 'raj', 'POST', '/api/webchat/messages', {
      text: `/approve ${request.code}`,
    });
    expect(approved.body.replies[0].text).toBe('Approved by webchat:raj: shell.exec runs now.');
    expect((await turn).body.replies.at(-1).text).toBe('ran: ann-ran');

    const lines = await audit(gateway);
    expect(lines.map((line) => [line.event, line.requester, line.by ?? null, line.reason ?? null])).toEqual([
      ['requested', 'webchat:ann', null, null],
      ['refused', 'webchat:ann', 'webchat:ann', 'separation of duties'],
      ['refused', 'webchat:ann', 'webchat:ann', 'separation of duties'],
      ['refused', 'webchat:ann', 'webchat:ann', 'separation of duties'],
      ['approved', 'webchat:ann', 'webchat:raj', null],
      ['used', 'webchat:ann', 'webchat:raj', null],
    ]);
  }, 60_000);

  it('with no other approver the request says so, waits and is denied when it times out', async () => {
    const { gateway, model } = await setup({
      owners: ['webchat:ann'],
      approvals: { separateDuties: ['shell.*'], timeoutSeconds: 10 },
    });
    const stream = await openEvents({ url: gateway.url, token: TOKENS.ann as string }, 'ann');
    model.push(shell('echo never'));
    model.push((request) => ({ text: `result: ${JSON.stringify(lastToolResult(request))}` }));
    const turn = as(gateway, 'ann', 'POST', '/api/webchat/messages', { text: 'run it' });
    const request = await posted(stream.events);
    expect(request.text).toContain(
      'Separation of duties: webchat:ann made this call and cannot approve it, and no other approver is configured (approvals.approvers): it waits, and is denied when it times out.',
    );
    const typed = await as(gateway, 'ann', 'POST', '/api/webchat/messages', {
      text: `/approve ${request.code}`,
    });
    expect(typed.body.replies[0].text).toMatch(/^Refused: webchat:ann made this call/);
    const reply = (await turn).body.replies.at(-1).text as string;
    expect(reply).toContain('no decision within 10 s');
    expect(reply).not.toContain('never\\n');
    expect((await audit(gateway)).map((line) => line.event)).toEqual(['requested', 'refused', 'expired']);
  }, 60_000);
});
