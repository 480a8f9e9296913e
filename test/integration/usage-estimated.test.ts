import { describe, expect, it } from 'vitest';
import type { FakeUsageMode } from '../fakes/fake-openai-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startTestGateway, TEST_TOKEN, type TestGateway } from '../helpers/gateway.js';
import { parseExposition } from '../helpers/prometheus.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * Every call counted (issue 36, item 5): a real gateway streams from the fake OpenAI-compatible
 * server at 127.0.0.1 (not OpenAI's own API). A server that reports usage only when asked is asked,
 * and `/usage` counts exactly what it reported; one that never reports usage has its calls counted
 * with an estimate, marked as estimated in `/usage`, `GET /api/usage` and `/metrics`, and the daily
 * budget counts the estimate.
 */

const cleanups = cleanupAfterEach();
const NOW = new Date('2026-12-06T21:30:00Z');

async function setup(usage: FakeUsageMode, config: Record<string, unknown> = {}) {
  const model = await startFakeOpenAIServer({
    usage,
    defaultStep: { text: 'noted', usage: { inputTokens: 400, outputTokens: 20 } },
  });
  cleanups.push(() => model.close());
  const gateway = await startTestGateway({
    config: {
      http: { port: 0, token: TEST_TOKEN },
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, stream: true } },
      agents: { main: { model: 'fake' } },
      ...config,
    },
    now: () => NOW,
  });
  cleanups.push(() => gateway.dispose());
  return { gateway, model };
}

function texts(response: { body: any }): string[] {
  return response.body.replies.map((reply: { text: string }) => reply.text);
}

async function metricValue(gateway: TestGateway, name: string, labels: Record<string, string>) {
  const response = await fetch(`${gateway.url}/metrics`, {
    headers: { authorization: `Bearer ${gateway.token}`, connection: 'close' },
  });
  return parseExposition(await response.text()).value(name, labels) ?? 0;
}

describe('usage of a streaming OpenAI-compatible server', () => {
  it('is asked for and counted exactly when the server reports it only when asked', async () => {
    const { gateway, model } = await setup('when-asked');
    expect(texts(await gateway.send('hello'))).toEqual(['noted']);
    expect(model.requests[0]).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const usage = await gateway.request('GET', '/api/usage');
    expect(usage.body.total).toEqual({ inputTokens: 400, outputTokens: 20, calls: 1 });
    const table = texts(await gateway.send('/usage'))[0];
    expect(table).toContain('main       1    400      20');
    expect(table).not.toContain('estimated');
    const estimated = { model: 'fake', direction: 'input' };
    expect(await metricValue(gateway, 'switchboard_model_tokens_estimated_total', estimated)).toBe(0);
  });

  it('is estimated, and marked so in /usage, the API and the metrics, when the server never reports it', async () => {
    const { gateway } = await setup('never');
    expect(texts(await gateway.send('hello'))).toEqual(['noted']);
    const usage = await gateway.request('GET', '/api/usage');
    const { total } = usage.body;
    expect(total).toMatchObject({ calls: 1, estimatedCalls: 1 });
    // The system prompt alone is hundreds of characters; the answer 'noted' is 2 tokens.
    expect(total.inputTokens).toBeGreaterThan(10);
    expect(total.outputTokens).toBe(2);
    expect(usage.body.rows).toEqual([{ name: 'main', ...total }]);
    const table = texts(await gateway.send('/usage'))[0];
    expect(table).toContain('1 of 1 calls estimated');
    const input = { model: 'fake', direction: 'input' };
    const output = { model: 'fake', direction: 'output' };
    expect(await metricValue(gateway, 'switchboard_model_tokens_estimated_total', input)).toBe(
      total.inputTokens,
    );
    expect(await metricValue(gateway, 'switchboard_model_tokens_estimated_total', output)).toBe(2);
    expect(await metricValue(gateway, 'switchboard_model_tokens_total', input)).toBe(total.inputTokens);
  });

  it('counts estimates against the daily budget', async () => {
    const { gateway, model } = await setup('never', {
      budgets: { agents: { main: { tokens: 10 } }, ownersExempt: false },
    });
    expect(texts(await gateway.send('hello'))).toEqual(['noted']);
    const refused = texts(await gateway.send('again'))[0];
    expect(refused).toMatch(/^The daily token budget of agent "main" is spent: [\d,]+ tokens today/);
    expect(model.requests).toHaveLength(1);
  });
});
