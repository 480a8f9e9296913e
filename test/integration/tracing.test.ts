import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

/**
 * OpenTelemetry spans, as an operator gets them by registering an SDK before the gateway starts
 * (here the SDK's BasicTracerProvider with an in-memory exporter and the async-hooks context
 * manager): one turn is a `switchboard.turn` span, the parent of a `switchboard.model_call` per
 * model call (with the usage the fake reported) and a `switchboard.tool_call` per tool call.
 */

describe('OpenTelemetry spans', () => {
  const exporter = new InMemorySpanExporter();
  let gateway: TestGateway;
  let model: FakeModelServer;

  beforeAll(async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
    model = await startFakeOpenAIServer();
    gateway = await startTestGateway({
      config: {
        models: {
          fake: {
            provider: 'openai',
            model: 'fake-1',
            baseUrl: model.url,
            apiKey: 'sk-trace',
            stream: false,
          },
        },
        agents: { main: { model: 'fake' } },
      },
    });
  });

  afterAll(async () => {
    await gateway?.dispose();
    await model?.close();
    trace.disable();
    context.disable();
  });

  it('records a turn with its model calls and tool call as children, with their attributes', async () => {
    model.push(
      { toolCalls: [{ name: 'session_status', arguments: {} }], usage: { inputTokens: 50, outputTokens: 6 } },
      { text: 'Traced.', usage: { inputTokens: 80, outputTokens: 9 } },
    );
    expect((await gateway.send('trace this')).status).toBe(200);
    const spans = exporter.getFinishedSpans();
    const named = (name: string) => spans.filter((span) => span.name === name);
    const [turn] = named('switchboard.turn');
    expect(named('switchboard.turn')).toHaveLength(1);
    expect(turn?.attributes).toMatchObject({
      'switchboard.agent': 'main',
      'switchboard.channel': 'webchat',
      'switchboard.outcome': 'done',
    });
    expect(turn?.instrumentationScope.name).toBe('switchboard');
    const childOfTurn = (span: ReadableSpan) =>
      span.parentSpanContext?.spanId === turn?.spanContext().spanId &&
      span.spanContext().traceId === turn?.spanContext().traceId;

    const calls = named('switchboard.model_call');
    expect(calls.map((span) => span.attributes)).toEqual([
      {
        'switchboard.model': 'fake',
        'switchboard.outcome': 'ok',
        'gen_ai.usage.input_tokens': 50,
        'gen_ai.usage.output_tokens': 6,
      },
      {
        'switchboard.model': 'fake',
        'switchboard.outcome': 'ok',
        'gen_ai.usage.input_tokens': 80,
        'gen_ai.usage.output_tokens': 9,
      },
    ]);
    expect(calls.every(childOfTurn)).toBe(true);

    const tools = named('switchboard.tool_call');
    expect(tools.map((span) => span.attributes)).toEqual([
      { 'switchboard.tool': 'session_status', 'switchboard.agent': 'main', 'switchboard.outcome': 'ok' },
    ]);
    expect(tools.every(childOfTurn)).toBe(true);
    // No span carries a session key, a user or a text.
    const values = spans.flatMap((span) => Object.values(span.attributes)).map(String);
    for (const text of ['trace this', 'Traced.', 'webchat:local']) expect(values).not.toContain(text);
  });
});
