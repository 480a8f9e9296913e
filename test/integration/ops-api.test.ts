import { describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startGatewayForTest } from '../helpers/channels.js';
import { TEST_TOKEN, type TestGateway } from '../helpers/gateway.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * The approvals inbox and the status report through a listening gateway: a fake OpenAI model
 * calls `shell.exec` (`ask` by default), the request shows in `GET /api/approvals`, a decision
 * through `POST /api/approvals/:id` lets the held call run; every refusal answers its status.
 */

const WAIT = { timeout: 15_000, interval: 50 };
const API_KEY = 'sk-ops-api-secret-0001';
const cleanups = cleanupAfterEach();
let model: FakeModelServer;

async function startGateway(config: Record<string, unknown> = {}): Promise<TestGateway> {
  model = await startFakeOpenAIServer();
  cleanups.push(() => model.close());
  return startGatewayForTest(cleanups, {
    config: {
      gateway: { drainTimeoutMs: 200 },
      tools: { toolpacks: ['shell'] },
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: API_KEY } },
      agents: { main: { model: 'fake' } },
      ...config,
    },
  });
}

/** Sends a message whose turn calls shell.exec and waits on its approval; resolves with the request. */
async function pendingRequest(gateway: TestGateway, command: string) {
  model.push({ toolCalls: [{ name: 'shell.exec', arguments: { command: `${command} # ${API_KEY}` } }] });
  model.push({ text: 'done' });
  const reply = gateway.send('please run it');
  // Left waiting by some tests: the gateway's stop ends it.
  reply.catch(() => undefined);
  await expect
    .poll(async () => (await gateway.request('GET', '/api/approvals')).body.open?.length, WAIT)
    .toBe(1);
  return { reply, request: (await gateway.request('GET', '/api/approvals')).body.open[0] };
}

describe('the approvals inbox API', () => {
  it('lists a pending request with scrubbed arguments; approve runs the held call; a second decision is 409', async () => {
    const gateway = await startGateway();
    const { reply, request } = await pendingRequest(gateway, 'echo inbox-ran');
    expect(request).toMatchObject({
      kind: 'tool',
      tool: 'shell.exec',
      status: 'pending',
      requester: 'webchat:local',
    });
    expect(request.arguments).toContain('echo inbox-ran');
    expect(JSON.stringify(request)).not.toContain(API_KEY);
    expect(request.route).toBeUndefined();

    const decided = await gateway.request('POST', `/api/approvals/${request.id}`, { decision: 'approve' });
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({
      ok: true,
      approval: { id: request.id, decidedBy: 'webchat:local' },
    });
    expect(decided.body.text).toMatch(/^Approved by webchat:local/);
    expect((await reply).body.replies.at(-1).text).toBe('done');
    const toolResult = JSON.parse(model.requests[1]?.messages.at(-1).content);
    expect(toolResult.stdout).toBe('inbox-ran\n');

    const listed = await gateway.request('GET', '/api/approvals');
    expect(listed.body.open).toEqual([]);
    expect(listed.body.decided[0]).toMatchObject({
      id: request.id,
      status: 'used',
      decidedBy: 'webchat:local',
    });
    expect(listed.body.decided[0].decidedAt).toMatch(/^\d{4}-/);
    const again = await gateway.request('POST', `/api/approvals/${request.id}`, { decision: 'deny' });
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/already used by webchat:local/);
  });

  it('deny: the call does not run; unknown ids are 404, bad bodies and unknown query keys 400 naming the field', async () => {
    const gateway = await startGateway();
    const { reply, request } = await pendingRequest(gateway, 'echo never');
    const bad = await gateway.request('POST', `/api/approvals/${request.id}`, { decision: 'maybe' });
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('decision');
    const extra = await gateway.request('POST', `/api/approvals/${request.id}`, {
      decision: 'deny',
      by: 'x',
    });
    expect(extra.status).toBe(400);
    expect(extra.body.field).toBe('by');
    const query = await gateway.request('GET', '/api/approvals?status=open');
    expect(query).toMatchObject({ status: 400, body: { field: 'status' } });
    const statusQuery = await gateway.request('GET', '/api/status?verbose=1');
    expect(statusQuery).toMatchObject({ status: 400, body: { field: 'verbose' } });
    const malformed = await gateway.request('POST', '/api/approvals/nope', { decision: 'deny' });
    expect(malformed.status).toBe(400);
    const unknown = await gateway.request('POST', '/api/approvals/ap_000000000000', { decision: 'deny' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toContain('ap_000000000000');

    const denied = await gateway.request('POST', `/api/approvals/${request.id}`, { decision: 'deny' });
    expect(denied.status).toBe(200);
    expect(denied.body.text).toMatch(/^Denied by webchat:local/);
    await reply;
    expect(JSON.parse(model.requests[1]?.messages.at(-1).content)).toMatchObject({ status: 'denied' });
  });

  it('an owner who is not among the approvers sees the inbox and is refused a decision (403 naming both)', async () => {
    const gateway = await startGateway({ approvals: { approvers: ['slack:U42'] } });
    const { request } = await pendingRequest(gateway, 'echo no');
    const refused = await gateway.request('POST', `/api/approvals/${request.id}`, { decision: 'approve' });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe(`only slack:U42 may decide ${request.code}; you are webchat:local`);
    expect((await gateway.request('GET', '/api/approvals')).body.open).toHaveLength(1);
  });

  it('the gateway token while owners and approvers name others: the operator, it sees the inbox and the status', async () => {
    const gateway = await startGateway({ owners: ['slack:U1'], approvals: { approvers: ['slack:U1'] } });
    const inbox = await gateway.request('GET', '/api/approvals');
    expect(inbox.status).toBe(200);
    expect(inbox.body).toMatchObject({ open: [], decided: [] });
    const decide = await gateway.request('POST', '/api/approvals/ap_000000000000', { decision: 'deny' });
    expect(decide.status).toBe(404);
    expect((await gateway.request('GET', '/api/status')).status).toBe(200);
  });
});

describe('named users', () => {
  const ALICE = 'alice-token-0123456789';
  const BOB = 'bob-token-0123456789ab';
  async function as(gateway: TestGateway, token: string, method: string, route: string, body?: unknown) {
    const response = await fetch(`${gateway.url}${route}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        connection: 'close',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as any };
  }

  it('an approver who is not an owner decides from the inbox and is refused the status; a stranger neither', async () => {
    const gateway = await startGateway({
      http: { port: 0, token: TEST_TOKEN, users: { alice: { token: ALICE }, bob: { token: BOB } } },
      approvals: { approvers: ['webchat:alice'] },
    });
    const { reply, request } = await pendingRequest(gateway, 'echo by-alice');
    expect((await as(gateway, BOB, 'GET', '/api/approvals')).status).toBe(403);
    const bobDecides = await as(gateway, BOB, 'POST', `/api/approvals/${request.id}`, {
      decision: 'approve',
    });
    expect(bobDecides.status).toBe(403);
    expect(bobDecides.body.message).toContain('webchat:bob');
    const seen = await as(gateway, ALICE, 'GET', '/api/approvals');
    expect(seen.status).toBe(200);
    expect(seen.body.open.map((open: { id: string }) => open.id)).toEqual([request.id]);
    expect((await as(gateway, ALICE, 'GET', '/api/status')).status).toBe(403);
    const decided = await as(gateway, ALICE, 'POST', `/api/approvals/${request.id}`, { decision: 'approve' });
    expect(decided.status).toBe(200);
    expect(decided.body.approval.decidedBy).toBe('webchat:alice');
    expect((await reply).body.replies.at(-1).text).toBe('done');
  });
});

describe('GET /api/status', () => {
  it('reports channels, store, the model after a call, uptime, version and the restarts; no secret', async () => {
    const gateway = await startGateway();
    model.push({ text: 'hello' });
    expect((await gateway.send('hi')).status).toBe(200);
    await gateway.restart();
    const { status, body } = await gateway.request('GET', '/api/status');
    expect(status).toBe(200);
    expect(body.channels).toEqual([
      expect.objectContaining({ name: 'webchat', state: 'connected', attempts: 0 }),
    ]);
    expect(body.store).toMatchObject({ driver: 'sqlite', reachable: true });
    expect(body.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(body.uptimeSeconds).toBeGreaterThanOrEqual(0);
    expect(body.restarts.map((restart: { reason: string }) => restart.reason)).toEqual(['test', 'start']);
    // After the restart no call was made yet: the model is listed without an outcome.
    expect(body.models).toEqual([{ name: 'fake', description: expect.stringContaining('fake-1') }]);
    model.push({ text: 'again' });
    await gateway.send('hi again');
    const after = (await gateway.request('GET', '/api/status')).body;
    expect(after.models[0].lastCall).toMatchObject({ ok: true });
    expect(JSON.stringify(after)).not.toContain(API_KEY);
  });

  it('a model that fails: its last call is not ok, with the error', async () => {
    const gateway = await startGateway({
      models: {
        fake: { provider: 'openai', model: 'fake-1', baseUrl: 'http://127.0.0.1:9/v1', apiKey: API_KEY },
      },
    });
    await gateway.send('hi');
    const { body } = await gateway.request('GET', '/api/status');
    expect(body.models[0].lastCall).toMatchObject({ ok: false, error: expect.any(String) });
    expect(JSON.stringify(body)).not.toContain(API_KEY);
  });
});
