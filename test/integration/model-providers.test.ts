import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ModelConfig } from '../../src/base/config/index.js';
import { createLogger } from '../../src/base/logging/index.js';
import {
  createModelProvider,
  createToolNameCodec,
  encodeToolName,
  ModelCallError,
  type ModelMessage,
  type ModelRequest,
} from '../../src/engine/agents/providers/index.js';
import { startFakeAnthropicServer } from '../fakes/fake-anthropic-server.js';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { freePort } from '../helpers/machine.js';
import { countResources, openSockets } from '../helpers/resources.js';

const quiet = createLogger({ level: 'silent' }).logger;

const PROVIDERS = [
  { provider: 'openai', model: 'gpt-test', start: startFakeOpenAIServer, basePath: '/v1' },
  { provider: 'anthropic', model: 'claude-test', start: startFakeAnthropicServer, basePath: '' },
] as const;

type ProviderCase = (typeof PROVIDERS)[number];

function makeRequest(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    system: 'You are a test.',
    messages: [{ role: 'user', content: 'hello' }],
    tools: [],
    signal: new AbortController().signal,
    ...overrides,
  };
}

async function failure(promise: Promise<unknown>): Promise<ModelCallError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ModelCallError);
  return error as ModelCallError;
}

const SCHEDULE_TOOL = {
  name: 'schedule.once',
  description: 'Schedules a message.',
  parameters: { type: 'object', properties: { at: { type: 'string' } }, required: ['at'] },
};

// First in the file, so that no earlier test's sockets are still closing when it counts.
describe('sockets', () => {
  it('closes every connection, including keep-alive ones the SDKs pooled, when the fake servers close', async () => {
    const before = openSockets();
    const servers = await Promise.all(PROVIDERS.map((target) => target.start()));
    for (const [index, target] of PROVIDERS.entries()) {
      const baseUrl = servers[index]?.url;
      const config: ModelConfig = {
        provider: target.provider,
        model: 'm',
        baseUrl,
        stream: true,
        maxRetries: 2,
        timeoutMs: 10_000,
      };
      const provider = await createModelProvider({ name: 'main', config, logger: quiet });
      await provider.complete(makeRequest());
      await provider.complete(makeRequest({ onTextDelta: () => {} }));
    }
    // Undici keeps idle connections pooled (unref'd, so they never hold the process open).
    expect(openSockets()).toBeGreaterThan(before + PROVIDERS.length);
    await Promise.all(servers.map((server) => server.close()));
    await expect.poll(openSockets).toBe(before);
  });
});

describe.each(PROVIDERS)('the $provider provider', (target: ProviderCase) => {
  let server: FakeModelServer;

  beforeEach(async () => {
    server = await target.start();
  });
  afterEach(() => server.close());

  function makeProvider(overrides: Partial<ModelConfig> = {}, logger = quiet) {
    const config: ModelConfig = {
      provider: target.provider,
      model: target.model,
      baseUrl: server.url,
      stream: true,
      maxRetries: 2,
      timeoutMs: 120_000,
      ...overrides,
    };
    return createModelProvider({ name: 'main', config, logger });
  }

  it('streams text deltas in order and returns their concatenation', async () => {
    server.push({
      text: 'The quick brown fox jumps',
      chunks: 5,
      usage: { inputTokens: 12, outputTokens: 7 },
    });
    const deltas: string[] = [];
    const response = await (await makeProvider()).complete(
      makeRequest({ onTextDelta: (delta) => deltas.push(delta) }),
    );
    expect(deltas).toHaveLength(5);
    expect(deltas.join('')).toBe('The quick brown fox jumps');
    expect(response).toMatchObject({ text: 'The quick brown fox jumps', toolCalls: [], stopReason: 'end' });
    expect(server.requests[0]).toMatchObject({ model: target.model, stream: true });
    expect(server.requests[0]).not.toHaveProperty('tools');
    if (target.provider === 'anthropic') expect(response.usage).toEqual({ inputTokens: 12, outputTokens: 7 });
  });

  it('returns tool calls with dotted names and JSON arguments, and offers tools under encoded names', async () => {
    server.push({
      text: 'Scheduling.',
      toolCalls: [
        { name: 'schedule.once', arguments: { at: '09:00', body: 'stand-up' } },
        { name: 'plan.set_item_status', arguments: { item: 1, status: 'done' } },
      ],
    });
    const deltas: string[] = [];
    const tools = [SCHEDULE_TOOL, { ...SCHEDULE_TOOL, name: 'plan.set_item_status' }];
    const response = await (await makeProvider()).complete(
      makeRequest({ tools, onTextDelta: (delta) => deltas.push(delta) }),
    );
    expect(deltas.join('')).toBe('Scheduling.');
    expect(response.stopReason).toBe('tool_calls');
    expect(response.toolCalls.map((call) => call.name)).toEqual(['schedule.once', 'plan.set_item_status']);
    expect(response.toolCalls.map((call) => JSON.parse(call.arguments))).toEqual([
      { at: '09:00', body: 'stand-up' },
      { item: 1, status: 'done' },
    ]);
    expect(response.toolCalls.every((call) => call.id.length > 0)).toBe(true);
    const offered = server.requests[0].tools.map((tool: any) => tool.function?.name ?? tool.name);
    expect(offered).toEqual(['schedule__once', 'plan__set_item_status']);
  });

  it('works without streaming, reporting the whole text once', async () => {
    server.push({ text: 'plain answer', toolCalls: [{ name: 'schedule.once', arguments: { at: '10:00' } }] });
    const deltas: string[] = [];
    const provider = await makeProvider({ stream: false });
    const response = await provider.complete(
      makeRequest({ tools: [SCHEDULE_TOOL], onTextDelta: (delta) => deltas.push(delta) }),
    );
    expect(server.requests[0].stream).not.toBe(true);
    expect(deltas).toEqual(['plain answer']);
    expect(response).toMatchObject({
      text: 'plain answer',
      stopReason: 'tool_calls',
      usage: { inputTokens: 10, outputTokens: 5 },
    });
    expect(response.toolCalls).toMatchObject([{ name: 'schedule.once', arguments: '{"at":"10:00"}' }]);
  });

  it('retries a 429 after the server-given delay, logging the retry without the conversation', async () => {
    server.push({ status: 429, retryAfterMs: 20, errorMessage: 'slow down' }, { text: 'second time lucky' });
    const lines: string[] = [];
    const { logger } = createLogger({
      level: 'warn',
      destination: { write: (line: string) => void lines.push(line) },
    });
    const response = await (await makeProvider({}, logger)).complete(makeRequest());
    expect(response.text).toBe('second time lucky');
    expect(server.requests).toHaveLength(2);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({
      level: 40,
      msg: 'model request failed; retrying',
      model: 'main',
      url: server.url,
      status: 429,
      attempt: 1,
      delayMs: 20,
    });
    expect(lines[0]).not.toContain('hello');
  });

  it('ends repeated 500s in a ModelCallError naming the model, the URL and the attempts', async () => {
    server.push(
      ...Array.from({ length: 3 }, () => ({ status: 500, retryAfterMs: 1, errorMessage: 'engine exploded' })),
    );
    const error = await failure((await makeProvider()).complete(makeRequest()));
    expect(server.requests).toHaveLength(3);
    expect(error.message).toBe(
      `Model "main" (${target.provider} ${target.model} at ${server.url}) failed: HTTP 500 Internal Server Error: engine exploded (3 attempts).`,
    );
    expect(error).toMatchObject({ model: 'main', url: server.url, status: 500, attempts: 3 });
  });

  it('names the URL when nothing listens there', async () => {
    const url = `http://127.0.0.1:${await freePort()}${target.basePath}`;
    const error = await failure(
      (await makeProvider({ baseUrl: url, maxRetries: 1 })).complete(makeRequest()),
    );
    expect(error.message).toBe(
      `Model "main" (${target.provider} ${target.model} at ${url}) failed: could not connect (ECONNREFUSED) (2 attempts).`,
    );
  });

  it('points at models.<name>.apiKey on a 401 and never repeats the key', async () => {
    server.push({ status: 401, errorMessage: 'Incorrect API key provided: sk-test-secret-1234' });
    const error = await failure(
      (await makeProvider({ apiKey: 'sk-test-secret-1234' })).complete(makeRequest()),
    );
    expect(server.requests).toHaveLength(1);
    expect(error.message).toContain('HTTP 401 Unauthorized');
    expect(error.message).toContain('check models.main.apiKey');
    expect(error.message).not.toContain('sk-test-secret-1234');
    expect(error.status).toBe(401);
  });

  it('rejects with the abort reason when aborted during a call that hangs, and the server sees the disconnect', async () => {
    server.push({ hang: true });
    const controller = new AbortController();
    const call = (await makeProvider()).complete(makeRequest({ signal: controller.signal }));
    await server.waitForRequests(1);
    const reason = new Error('stopped by the test');
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    await server.waitForDisconnects(1);
  });

  it('rejects with the abort reason when aborted while waiting to retry, leaving no timer behind', async () => {
    server.push({ status: 503, retryAfterMs: 30_000 });
    const timers = () => countResources('Timeout');
    const timersBefore = timers();
    const controller = new AbortController();
    const call = (await makeProvider()).complete(makeRequest({ signal: controller.signal }));
    await server.waitForRequests(1);
    const reason = new Error('stopped during backoff');
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    expect(server.requests).toHaveLength(1);
    // No retry timer left waiting (timers of earlier tests' connections may have ended meanwhile).
    expect(timers()).toBeLessThanOrEqual(timersBefore);
  });

  it('does not retry when the server asks to wait longer than a minute', async () => {
    server.push({ status: 429, retryAfterMs: 3_600_000, errorMessage: 'quota' });
    const error = await failure((await makeProvider()).complete(makeRequest()));
    expect(server.requests).toHaveLength(1);
    expect(error.message).toContain('HTTP 429 Too Many Requests: quota (1 attempt).');
  });

  it('fails a stream that stops arriving after timeoutMs, keeping the text already streamed', async () => {
    server.push({ text: 'half an ans', stall: true });
    const deltas: string[] = [];
    const call = (await makeProvider({ timeoutMs: 200 })).complete(
      makeRequest({ onTextDelta: (delta) => deltas.push(delta) }),
    );
    const error = await failure(call);
    expect(error.message).toContain('failed: the answer stalled for 200 ms (1 attempt).');
    expect(deltas.join('')).toBe('half an ans');
    await server.waitForDisconnects(1);
  });

  it('retries an attempt that timed out', async () => {
    server.push({ delayMs: 30_000, text: 'too late' }, { text: 'in time' });
    const response = await (await makeProvider({ timeoutMs: 200, maxRetries: 1 })).complete(makeRequest());
    expect(response.text).toBe('in time');
    expect(server.requests).toHaveLength(2);
    await server.waitForDisconnects(1);
  });

  it('times out a server that never answers', async () => {
    server.push({ hang: true });
    const error = await failure(
      (await makeProvider({ timeoutMs: 200, maxRetries: 0 })).complete(makeRequest()),
    );
    expect(error.message).toContain('failed: timed out after 200 ms (1 attempt).');
  });
});

describe('wire shapes of the conversation', () => {
  const history: ModelMessage[] = [
    { role: 'user', content: 'remind me' },
    {
      role: 'assistant',
      content: '',
      toolCalls: [
        { id: 'call_a', name: 'schedule.once', arguments: '{"at":"09:00"}' },
        { id: 'call_b', name: 'plan.status', arguments: 'not json' },
      ],
    },
    { role: 'tool', toolCallId: 'call_a', toolName: 'schedule.once', content: '{"ok":true}' },
    {
      role: 'tool',
      toolCallId: 'call_b',
      toolName: 'plan.status',
      content: '{"error":"no plan"}',
      isError: true,
    },
    { role: 'user', content: 'thanks' },
  ];
  let server: FakeModelServer | undefined;
  afterEach(() => server?.close());

  function provider(provider: 'openai' | 'anthropic', options: Partial<ModelConfig> = {}) {
    const config: ModelConfig = {
      provider,
      model: 'm',
      baseUrl: server?.url,
      stream: true,
      maxRetries: 0,
      timeoutMs: 10_000,
    };
    return createModelProvider({ name: 'main', config: { ...config, ...options }, logger: quiet });
  }

  it('sends OpenAI chat messages: system first, assistant tool_calls, tool results by id', async () => {
    server = await startFakeOpenAIServer();
    await (await provider('openai', { maxTokens: 100, temperature: 0.2 })).complete(
      makeRequest({ messages: history }),
    );
    const [body] = server.requests;
    expect(body).toMatchObject({ model: 'm', max_tokens: 100, temperature: 0.2 });
    // Streamed usage is asked of every OpenAI-compatible server, not only OpenAI's own API.
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are a test.' },
      { role: 'user', content: 'remind me' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          {
            id: 'call_a',
            type: 'function',
            function: { name: 'schedule__once', arguments: '{"at":"09:00"}' },
          },
          { id: 'call_b', type: 'function', function: { name: 'plan__status', arguments: 'not json' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '{"ok":true}' },
      { role: 'tool', tool_call_id: 'call_b', content: '{"error":"no plan"}' },
      { role: 'user', content: 'thanks' },
    ]);
  });

  it('sends Anthropic turns: system on top, tool_use inputs parsed, results first in a merged user turn', async () => {
    server = await startFakeAnthropicServer();
    const messages: ModelMessage[] = [...history, { role: 'user', content: 'and one more' }];
    await (await provider('anthropic', { temperature: 0.2 })).complete(makeRequest({ messages }));
    const [body] = server.requests;
    expect(body).toMatchObject({ model: 'm', max_tokens: 4096, temperature: 0.2, system: 'You are a test.' });
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'remind me' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'call_a', name: 'schedule__once', input: { at: '09:00' } },
          { type: 'tool_use', id: 'call_b', name: 'plan__status', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_a', content: '{"ok":true}' },
          { type: 'tool_result', tool_use_id: 'call_b', content: '{"error":"no plan"}', is_error: true },
          { type: 'text', text: 'thanks' },
          { type: 'text', text: 'and one more' },
        ],
      },
    ]);
  });

  it('retries an Anthropic 529 (overloaded)', async () => {
    server = await startFakeAnthropicServer();
    server.push({ status: 529, retryAfterMs: 1, errorMessage: 'Overloaded' }, { text: 'fine now' });
    const response = await (await provider('anthropic', { maxRetries: 2 })).complete(makeRequest());
    expect(response.text).toBe('fine now');
    expect(server.requests).toHaveLength(2);
  });
});

describe('tool names on the wire', () => {
  it('encodes dots readably and decodes every name a request offered, even ambiguous ones', () => {
    expect(encodeToolName('schedule.once')).toBe('schedule__once');
    expect(encodeToolName('sessions_spawn')).toBe('sessions_spawn');
    const names = ['schedule.once', 'my__tool', 'a._b', 'odd name!'];
    const codec = createToolNameCodec(names);
    for (const name of names) {
      expect(codec.encode(name)).toMatch(/^[a-zA-Z0-9_-]+$/);
      expect(codec.decode(codec.encode(name))).toBe(name);
    }
    expect(codec.decode('plan__close')).toBe('plan.close');
  });

  it('sends every name within 64 characters, shortened the same way each time, and tells apart names that meet', () => {
    const long = `mcp.records.look_up_${'a'.repeat(55)}_records`;
    const longer = `${long}_too`;
    const names = [long, longer, 'a.b', 'a__b'];
    const codec = createToolNameCodec(names);
    const wire = names.map((name) => codec.encode(name));
    expect(wire.filter((name) => !/^[a-zA-Z0-9_-]{1,64}$/.test(name))).toEqual([]);
    expect(new Set(wire).size).toBe(names.length);
    for (const name of names) expect(codec.decode(codec.encode(name))).toBe(name);
    // Deterministic: the next request (and the fake model) send the same wire name.
    expect(createToolNameCodec([long]).encode(long)).toBe(wire[0]);
    expect(encodeToolName(long)).toBe(wire[0]);
    expect(wire[0]?.startsWith('mcp__records__look_up_')).toBe(true);
  });
});

describe('usage of OpenAI-compatible servers', () => {
  let server: FakeModelServer | undefined;
  afterEach(() => server?.close());

  async function complete(stream: boolean, request: Partial<ModelRequest> = {}) {
    const config: ModelConfig = {
      provider: 'openai',
      model: 'm',
      baseUrl: server?.url,
      stream,
      maxRetries: 0,
      timeoutMs: 10_000,
    };
    const provider = await createModelProvider({ name: 'main', config, logger: quiet });
    return provider.complete(makeRequest(request));
  }

  it('asks a server that is not OpenAI for usage while streaming, and returns what it reports', async () => {
    server = await startFakeOpenAIServer({ usage: 'when-asked' });
    server.push({ text: 'The quick brown fox', chunks: 3, usage: { inputTokens: 12, outputTokens: 7 } });
    const response = await complete(true);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:/);
    expect(server.requests[0]).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(response.usage).toEqual({ inputTokens: 12, outputTokens: 7 });
  });

  it('estimates the usage of a server that never reports it, streamed or not, and marks it estimated', async () => {
    // About 4 characters a token: the system prompt (15 characters) 4, the message (5) 2 plus 8 for
    // its wire share; the answer (19 characters) 5.
    for (const stream of [true, false]) {
      server = await startFakeOpenAIServer({ usage: 'never' });
      server.push({ text: 'The quick brown fox', usage: { inputTokens: 12, outputTokens: 7 } });
      const response = await complete(stream);
      expect(response.text).toBe('The quick brown fox');
      expect(response.usage).toEqual({ inputTokens: 14, outputTokens: 5, estimated: true });
      await server.close();
    }
    server = undefined;
  });

  it('estimates tool specs in the input and tool calls in the output', async () => {
    server = await startFakeOpenAIServer({ usage: 'never' });
    server.push({ text: 'Scheduling.', toolCalls: [{ name: 'schedule.once', arguments: { at: '09:00' } }] });
    const response = await complete(true, { tools: [SCHEDULE_TOOL] });
    expect(response.toolCalls).toHaveLength(1);
    const toolSpecs = Math.ceil(JSON.stringify([SCHEDULE_TOOL]).length / 4);
    // 'Scheduling.' + 'schedule.once' + '{"at":"09:00"}': 38 characters.
    expect(response.usage).toEqual({ inputTokens: 14 + toolSpecs, outputTokens: 10, estimated: true });
  });

  it('asks again without stream_options when a server rejects them, and estimates from then on', async () => {
    server = await startFakeOpenAIServer({ usage: 'never' });
    const strict = (request: { body: any }) =>
      request.body.stream_options
        ? { status: 400, errorMessage: 'Unrecognized request argument supplied: stream_options' }
        : { text: 'The quick brown fox' };
    server.push(strict, strict, strict);
    const config: ModelConfig = {
      provider: 'openai',
      model: 'm',
      baseUrl: server.url,
      stream: true,
      maxRetries: 0,
      timeoutMs: 10_000,
    };
    const provider = await createModelProvider({ name: 'main', config, logger: quiet });
    const first = await provider.complete(makeRequest());
    expect(first).toMatchObject({ text: 'The quick brown fox', usage: { estimated: true } });
    const second = await provider.complete(makeRequest());
    expect(second.text).toBe('The quick brown fox');
    expect(server.requests.map((body) => 'stream_options' in body)).toEqual([true, false, false]);
  });
});
