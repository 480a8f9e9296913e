import { describe, expect, it } from 'vitest';
import { startFakeAnthropicServer } from '../fakes/fake-anthropic-server.js';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { freePort } from '../helpers/machine.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * Model failover end to end: web chat HTTP → router → the agent's model chain → the real OpenAI
 * SDK → two fake model servers, "a" (the primary) and its fallback "b". The cooldown clock is
 * the gateway's injected clock (`now`), moved by the test.
 */

const cleanups = cleanupAfterEach();

async function fakeModel(provider: 'openai' | 'anthropic' = 'openai'): Promise<FakeModelServer> {
  const server = await (provider === 'openai' ? startFakeOpenAIServer() : startFakeAnthropicServer());
  cleanups.push(() => server.close());
  return server;
}

async function setup(
  options: { primaryUrl?: string; primary?: 'openai' | 'anthropic'; config?: Record<string, unknown> } = {},
) {
  const primary = options.primary ?? 'openai';
  const b = await fakeModel();
  const a = options.primaryUrl === undefined ? await fakeModel(primary) : undefined;
  const clock = { now: Date.parse('2026-12-06T12:00:00Z') };
  const gateway = await startTestGateway({
    config: {
      models: {
        a: {
          provider: primary,
          model: 'fake-a',
          stream: true,
          baseUrl: options.primaryUrl ?? a?.url,
          apiKey: 'sk-primary-key-123',
          fallbacks: ['b'],
        },
        b: { provider: 'openai', model: 'fake-b', baseUrl: b.url, apiKey: 'sk-fallback-key-456' },
      },
      agents: { main: { model: 'a' } },
      ...options.config,
    },
    now: () => new Date(clock.now),
  });
  cleanups.push(() => gateway.dispose());
  return { gateway, a, b, clock };
}

async function transcript(gateway: TestGateway, key: string): Promise<any[]> {
  const response = await gateway.request('GET', `/api/sessions/${encodeURIComponent(key)}/transcript`);
  expect(response.status).toBe(200);
  return response.body.entries;
}

const texts = (response: { body: any }): string[] => response.body.replies.map((reply: any) => reply.text);

describe('model failover', () => {
  it('answers with the fallback after a 429, skips the primary while it cools down and uses it again after', async () => {
    const { gateway, a, b, clock } = await setup();
    a?.push({ status: 429, retryAfter: 120, errorMessage: 'slow down' });
    b.push({ text: 'B answers.' });
    const first = await gateway.send('hello');
    expect(texts(first)).toEqual([
      'B answers.',
      '(Answered by fallback model "b": "a" failed: HTTP 429 Too Many Requests: slow down)',
    ]);
    // retry-after (120 s) is longer than a retry may wait: no second request to "a".
    expect(a?.requests).toHaveLength(1);
    expect(b.requests).toHaveLength(1);
    const entries = await transcript(gateway, first.body.sessionKey);
    expect(entries.map((entry) => [entry.role, entry.model])).toEqual([
      ['user', undefined],
      ['assistant', 'b'],
      ['system', undefined],
    ]);

    const status = await gateway.request('GET', '/api/status');
    const models = Object.fromEntries(status.body.models.map((model: any) => [model.name, model]));
    expect(models.a.cooldownUntil).toBe('2026-12-06T12:02:00.000Z');
    expect(models.b.cooldownUntil).toBeUndefined();
    expect(status.body.lastFailover).toMatchObject({ agentId: 'main', from: 'a', to: 'b' });
    expect(status.body.lastFailover.why).toContain('HTTP 429');
    const chatStatus = texts(await gateway.send('/status')).join('\n');
    expect(chatStatus).toContain('Cooling down (rate limited): a until 12:02:00 UTC');
    expect(chatStatus).toMatch(/Last failover: .* ago, agent main, a → b: "a" failed: HTTP 429/);
    expect(JSON.stringify([status.body, chatStatus, entries])).not.toMatch(/sk-primary|sk-fallback/);

    b.push({ text: 'B again.' });
    const second = await gateway.send('still there?');
    expect(texts(second)).toEqual([
      'B again.',
      '(Answered by fallback model "b": "a" is cooling down until 12:02:00 UTC)',
    ]);
    expect(a?.requests).toHaveLength(1);

    clock.now += 120_001;
    a?.push({ text: 'A is back.' });
    const third = await gateway.send('and now?');
    expect(texts(third)).toEqual(['A is back.']);
    expect(a?.requests).toHaveLength(2);
    expect(b.requests).toHaveLength(2);
    const last = await transcript(gateway, third.body.sessionKey);
    expect(last.at(-1)).toMatchObject({ role: 'assistant', model: 'a', text: 'A is back.' });
    const after = await gateway.request('GET', '/api/status');
    expect(after.body.models.find((model: any) => model.name === 'a').cooldownUntil).toBeUndefined();
  });

  it('does not fail over on a 400: the fallback sees nothing and the chat is told', async () => {
    const { gateway, a, b } = await setup();
    a?.push({ status: 400, errorMessage: 'messages: too many images' });
    const response = await gateway.send('hello');
    expect(texts(response)).toEqual([
      'Model "a" (openai fake-a at ' +
        `${a?.url}) failed: HTTP 400 Bad Request: messages: too many images (1 attempt).`,
    ]);
    expect(b.requests).toHaveLength(0);
    expect((await gateway.request('GET', '/api/status')).body.lastFailover).toBeUndefined();
  });

  it('fails over on a 5xx after the one retry a model with a fallback gets', async () => {
    const { gateway, a, b } = await setup();
    a?.push({ status: 503, retryAfterMs: 1 }, { status: 503, retryAfterMs: 1 });
    b.push({ text: 'B covers.' });
    const response = await gateway.send('hello');
    expect(texts(response)[0]).toBe('B covers.');
    expect(texts(response)[1]).toContain('"a" failed: HTTP 503');
    expect(a?.requests).toHaveLength(2);
    // A 503 sets no cooldown: the next turn tries "a" first again.
    a?.push({ text: 'A again.' });
    expect(texts(await gateway.send('next'))).toEqual(['A again.']);
  });

  it('fails over on an overload inside a begun stream, but not once its text reached the chat', async () => {
    const { gateway, a, b } = await setup({ primary: 'anthropic' });
    a?.push({ streamError: 'overloaded_error' });
    b.push({ text: 'B steps in.' });
    const covered = await gateway.send('hello');
    expect(texts(covered)[0]).toBe('B steps in.');
    expect(texts(covered)[1]).toContain(
      '"a" failed: the server reported an error: scripted overloaded_error',
    );
    a?.push({ text: 'Half an ans', streamError: 'overloaded_error' });
    const cut = await gateway.send('again');
    expect(b.requests).toHaveLength(1);
    expect(texts(cut).at(-1)).toContain('Model "a" (anthropic fake-a at');
    expect(texts(cut).at(-1)).toContain('scripted overloaded_error');
  });

  it('fails over when the primary refuses connections; the notice can be turned off', async () => {
    const { gateway, b } = await setup({
      primaryUrl: `http://127.0.0.1:${await freePort()}/v1`,
      config: { agentLoop: { failoverNotice: false } },
    });
    b.push({ text: 'B is reachable.' });
    const response = await gateway.send('hello');
    expect(texts(response)).toEqual(['B is reachable.']);
    const entries = await transcript(gateway, response.body.sessionKey);
    expect(entries.at(-1)).toMatchObject({ role: 'assistant', model: 'b' });
    const status = await gateway.request('GET', '/api/status');
    expect(status.body.lastFailover.why).toContain('"a" failed: could not connect (ECONNREFUSED)');
  });
});
