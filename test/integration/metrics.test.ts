import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenCost } from '../../src/base/config/index.js';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startGatewayForTest } from '../helpers/channels.js';
import { startTestGateway, TEST_TOKEN, type TestGateway } from '../helpers/gateway.js';
import { type Exposition, parseExposition } from '../helpers/prometheus.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * `GET /metrics` through a listening gateway with the real router, store and tool loop against a
 * fake OpenAI server reporting usage: the text parses strictly as Prometheus' format, and the
 * counters move with the traffic (messages, turns, model calls, tokens and cost, tool calls, store
 * operations) and survive an in-process restart, which they count. It needs the token unless
 * `metrics.public`.
 */

const PRICE = { inputPerMillion: 3, outputPerMillion: 15 };
const BOB_TOKEN = 'bob-token-metrics-0123456789';

async function scrape(url: string, token?: string): Promise<{ status: number; type: string; text: string }> {
  const response = await fetch(`${url}/metrics`, {
    headers: { connection: 'close', ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    text: await response.text(),
  };
}

async function metricsOf(gateway: TestGateway): Promise<Exposition> {
  const answer = await scrape(gateway.url, gateway.token);
  expect(answer.status).toBe(200);
  return parseExposition(answer.text);
}

describe('GET /metrics', () => {
  let gateway: TestGateway;
  let model: FakeModelServer;

  beforeAll(async () => {
    model = await startFakeOpenAIServer({ defaultStep: { text: 'noted' } });
    gateway = await startTestGateway({
      config: {
        http: { port: 0, token: TEST_TOKEN, users: { bob: { token: BOB_TOKEN } } },
        models: {
          fake: {
            provider: 'openai',
            model: 'fake-1',
            baseUrl: model.url,
            apiKey: 'sk-metrics-secret-01',
            // Without streaming (streamed and estimated usage: usage-estimated.test.ts).
            stream: false,
            price: PRICE,
          },
        },
        agents: { main: { model: 'fake' } },
      },
    });
  });

  afterAll(async () => {
    await gateway?.dispose();
    await model?.close();
  });

  it('is refused without the token, and to a user who is not an owner', async () => {
    const anonymous = await scrape(gateway.url);
    expect(anonymous.status).toBe(401);
    expect(anonymous.text).not.toContain('switchboard_');
    expect((await scrape(gateway.url, BOB_TOKEN)).status).toBe(403);
  });

  it('parses as Prometheus text, every family named switchboard_*, with no session or user label', async () => {
    const answer = await scrape(gateway.url, gateway.token);
    expect(answer.status).toBe(200);
    expect(answer.type).toMatch(/^text\/plain; version=0\.0\.4/);
    const metrics = parseExposition(answer.text);
    expect([...metrics.types.keys()].filter((name) => !name.startsWith('switchboard_'))).toEqual([]);
    expect(metrics.types.get('switchboard_turn_duration_seconds')).toBe('histogram');
    expect(metrics.types.get('switchboard_process_cpu_seconds_total')).toBe('counter');
    const labels = new Set(metrics.samples.flatMap((sample) => Object.keys(sample.labels)));
    for (const forbidden of ['session', 'sessionKey', 'user', 'sender', 'senderId'])
      expect(labels).not.toContain(forbidden);
    expect(metrics.value('switchboard_channel_connected', { channel: 'webchat' })).toBe(1);
    expect(metrics.value('switchboard_queue_depth')).toBe(0);
    expect(answer.text).not.toContain('sk-metrics-secret-01');
  });

  it('counts messages, turns, model calls with their tokens and cost, tool calls and store operations', async () => {
    const before = await metricsOf(gateway);
    const count = (metrics: Exposition, name: string, labels?: Record<string, string>) =>
      metrics.value(name, labels) ?? 0;
    model.push(
      {
        toolCalls: [{ name: 'session_status', arguments: {} }],
        usage: { inputTokens: 120, outputTokens: 7 },
      },
      { text: 'All **fine**.', usage: { inputTokens: 300, outputTokens: 40 } },
    );
    const answer = await gateway.send('how is my session?');
    expect(answer.status).toBe(200);
    expect(answer.body.replies.map((reply: { text: string }) => reply.text)).toContain('All **fine**.');
    const after = await metricsOf(gateway);
    const moved = (name: string, labels?: Record<string, string>) =>
      count(after, name, labels) - count(before, name, labels);

    expect(moved('switchboard_messages_received_total', { channel: 'webchat' })).toBe(1);
    expect(moved('switchboard_messages_sent_total', { channel: 'webchat' })).toBeGreaterThanOrEqual(1);
    expect(moved('switchboard_turns_total', { agent: 'main', outcome: 'done' })).toBe(1);
    expect(moved('switchboard_turn_duration_seconds_count', { agent: 'main' })).toBe(1);
    expect(moved('switchboard_model_calls_total', { model: 'fake', outcome: 'ok' })).toBe(2);
    expect(moved('switchboard_model_call_duration_seconds_count', { model: 'fake' })).toBe(2);
    expect(moved('switchboard_model_tokens_total', { model: 'fake', direction: 'input' })).toBe(420);
    expect(moved('switchboard_model_tokens_total', { model: 'fake', direction: 'output' })).toBe(47);
    expect(moved('switchboard_model_cost_total', { model: 'fake' })).toBeCloseTo(
      tokenCost(PRICE, { inputTokens: 420, outputTokens: 47 }),
      12,
    );
    expect(moved('switchboard_tool_calls_total', { tool: 'session_status', outcome: 'ok' })).toBe(1);
    expect(moved('switchboard_message_duration_seconds_count', { channel: 'webchat' })).toBe(1);
    expect(count(after, 'switchboard_turns_running')).toBe(0);
  });

  it('counts a failed model call and the turn it ended', async () => {
    const before = await metricsOf(gateway);
    model.push({ status: 400, errorMessage: 'bad request' });
    expect((await gateway.send('this one fails')).status).toBe(200);
    const after = await metricsOf(gateway);
    const moved = (name: string, labels: Record<string, string>) =>
      (after.value(name, labels) ?? 0) - (before.value(name, labels) ?? 0);
    expect(moved('switchboard_model_calls_total', { model: 'fake', outcome: 'error' })).toBe(1);
    expect(moved('switchboard_turns_total', { agent: 'main', outcome: 'error' })).toBe(1);
  });

  it('keeps its counters across an in-process restart, and counts it', async () => {
    const before = await metricsOf(gateway);
    const received = before.value('switchboard_messages_received_total', { channel: 'webchat' }) ?? 0;
    expect(received).toBeGreaterThan(0);
    await gateway.restart();
    const after = await metricsOf(gateway);
    expect(after.value('switchboard_restarts_total')).toBe(
      (before.value('switchboard_restarts_total') ?? 0) + 1,
    );
    expect(after.value('switchboard_messages_received_total', { channel: 'webchat' })).toBe(received);
    expect(after.value('switchboard_channel_connected', { channel: 'webchat' })).toBe(1);
    expect((await gateway.send('/whoami')).status).toBe(200);
    expect(
      (await metricsOf(gateway)).value('switchboard_messages_received_total', { channel: 'webchat' }),
    ).toBe(received + 1);
  });
});

describe('GET /metrics with metrics.public', () => {
  const cleanups = cleanupAfterEach();

  it('answers a scraper without a token', async () => {
    const gateway = await startGatewayForTest(cleanups, { config: { metrics: { public: true } } });
    const answer = await scrape(gateway.url);
    expect(answer.status).toBe(200);
    expect(parseExposition(answer.text).types.get('switchboard_messages_received_total')).toBe('counter');
    // Only /metrics is opened: the API still needs the token.
    expect((await fetch(`${gateway.url}/api/status`, { headers: { connection: 'close' } })).status).toBe(401);
  });
});
