import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import type { Tool } from '../../src/engine/tools/index.js';
import { startFakeAnthropicServer } from '../fakes/fake-anthropic-server.js';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { freePort, makeTempDir, removeDir } from '../helpers/machine.js';
import { cleanupAfterEach } from '../helpers/teardown.js';
import { openEvents } from '../helpers/webchat-events.js';

/**
 * The agent runtime end to end: web chat HTTP → router → tool loop → the real provider SDK →
 * a fake model server, with tools registered in the real registry and the SQLite store.
 */

const cleanups = cleanupAfterEach();

const additions: { a: number; b: number }[] = [];
const addTool: Tool = {
  name: 'math.add',
  description: 'Adds two integers.',
  parameters: Type.Object(
    {
      a: Type.Integer({ description: 'First addend.' }),
      b: Type.Integer({ description: 'Second addend.' }),
    },
    { additionalProperties: false },
  ),
  execute(input: any) {
    additions.push(input);
    return { ok: true, sum: input.a + input.b };
  },
};
const explodingTool: Tool = {
  name: 'explode',
  description: 'Always throws.',
  parameters: Type.Object({}),
  execute() {
    throw new Error('the tool blew up');
  },
};
const ownerTool: Tool = {
  name: 'owner_secret',
  description: 'Owner-only test tool.',
  parameters: Type.Object({}),
  ownerOnly: true,
  execute: () => ({ ok: true, secret: 'owner stuff' }),
};

async function setup(
  options: {
    provider?: 'openai' | 'anthropic';
    model?: Record<string, unknown>;
    config?: Record<string, unknown>;
    tools?: Tool[];
  } = {},
): Promise<{ gateway: TestGateway; model: FakeModelServer }> {
  const provider = options.provider ?? 'openai';
  const model = await (provider === 'openai' ? startFakeOpenAIServer() : startFakeAnthropicServer());
  cleanups.push(() => model.close());
  const gateway = await startTestGateway({
    config: {
      models: {
        fake: { provider, model: 'fake-1', baseUrl: model.url, apiKey: 'sk-test-key-123', ...options.model },
      },
      agents: { main: { model: 'fake' } },
      ...options.config,
    },
    tools: options.tools ?? [addTool, explodingTool, ownerTool],
  });
  cleanups.push(() => gateway.dispose());
  return { gateway, model };
}

async function transcript(gateway: TestGateway, key: string): Promise<any[]> {
  const response = await gateway.request('GET', `/api/sessions/${encodeURIComponent(key)}/transcript`);
  expect(response.status).toBe(200);
  return response.body.entries;
}

function toolNamesOffered(body: any): string[] {
  // OpenAI: tools[].function.name; Anthropic: tools[].name. Names are encoded (`.` → `__`).
  return (body.tools ?? []).map((tool: any) => (tool.function?.name ?? tool.name).replaceAll('__', '.'));
}

describe('the tool loop', () => {
  for (const provider of ['openai', 'anthropic'] as const) {
    for (const stream of [true, false]) {
      it(`runs a tool and sends the final text to the chat and the transcript (${provider}, stream ${stream})`, async () => {
        const { gateway, model } = await setup({ provider, model: { stream } });
        model.push({ text: 'Let me add.', toolCalls: [{ name: 'math.add', arguments: { a: 2, b: 3 } }] });
        model.push({ text: 'The sum is 5.', chunks: 3 });
        const response = await gateway.send('what is 2+3?');
        expect(response.status).toBe(200);
        expect(response.body.replies.map((reply: any) => reply.text)).toEqual([
          'Let me add.',
          'The sum is 5.',
        ]);
        expect(model.requests).toHaveLength(2);
        expect(toolNamesOffered(model.requests[0])).toEqual(
          expect.arrayContaining(['math.add', 'ask_user', 'sessions_list', 'session_status']),
        );
        // The second call carries the tool result back to the model.
        expect(JSON.stringify(model.requests[1])).toContain('{\\"ok\\":true,\\"sum\\":5}');
        const entries = await transcript(gateway, response.body.sessionKey);
        expect(entries.map((entry) => entry.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
        expect(entries[1].toolCalls[0]).toMatchObject({ name: 'math.add' });
        expect(JSON.parse(entries[1].toolCalls[0].arguments)).toEqual({ a: 2, b: 3 });
        expect(entries[2]).toMatchObject({ toolName: 'math.add', text: '{"ok":true,"sum":5}' });
        expect(entries[3].text).toBe('The sum is 5.');
        // The API key went to the server, never into the transcript.
        expect(JSON.stringify(entries)).not.toContain('sk-test-key-123');
      });
    }
  }

  it('gives invalid arguments back to the model, which corrects the call', async () => {
    const { gateway, model } = await setup();
    additions.length = 0;
    model.push({ toolCalls: [{ name: 'math.add', arguments: { a: 'two', b: 3 } }] });
    model.push({ toolCalls: [{ name: 'math.add', arguments: { a: 2, b: 3 } }] });
    model.push({ text: 'Fixed it: 5.' });
    const response = await gateway.send('add two and three');
    expect(response.body.replies.at(-1).text).toBe('Fixed it: 5.');
    const second = JSON.stringify(model.requests[1]);
    expect(second).toContain('Invalid arguments for math.add');
    expect(second).toContain('/a: must be integer');
    expect(additions).toEqual([{ a: 2, b: 3 }]);
  });

  it('removes secret values from tool results before the model, the transcript or the chat sees them', async () => {
    const leakTool: Tool = {
      name: 'leak',
      description: 'Returns a configured secret.',
      parameters: Type.Object({}),
      execute: () => ({ ok: true, key: 'sk-test-key-123' }),
    };
    const { gateway, model } = await setup({ tools: [leakTool] });
    model.push({ toolCalls: [{ name: 'leak', arguments: {} }] }, { text: 'done' });
    const response = await gateway.send('leak it');
    expect(model.requests).toHaveLength(2);
    expect(JSON.stringify(model.requests[1])).toContain('"ok\\":true');
    expect(JSON.stringify(model.requests[1])).not.toContain('sk-test-key-123');
    const entries = await transcript(gateway, response.body.sessionKey);
    expect(JSON.stringify(entries)).not.toContain('sk-test-key-123');
  });

  it('survives a tool that throws: the model reads the error and the session goes on', async () => {
    const { gateway, model } = await setup();
    model.push({ toolCalls: [{ name: 'explode', arguments: {} }] });
    model.push({ text: 'The tool failed, sorry.' });
    const first = await gateway.send('blow it up');
    expect(first.body.replies.at(-1).text).toBe('The tool failed, sorry.');
    expect(JSON.stringify(model.requests[1])).toContain('Tool explode failed: the tool blew up');
    expect(
      gateway.logLines.some((line) => line.includes('"tool failed"') && line.includes('the tool blew up')),
    ).toBe(true);
    model.push({ text: 'Still here.' });
    const second = await gateway.send('are you ok?');
    expect(second.body.replies.map((reply: any) => reply.text)).toEqual(['Still here.']);
    expect((await gateway.request('GET', '/healthz')).status).toBe(200);
  });

  it('stops a model that calls tools forever after maxBurst rounds; a new message resets the count', async () => {
    const { gateway, model } = await setup();
    const forever = () => ({ toolCalls: [{ name: 'session_status', arguments: {} }] });
    const script = Array.from({ length: 40 }, () => forever);
    model.push(...script);
    const first = await gateway.send('loop please');
    expect(model.requests).toHaveLength(12);
    expect(first.body.replies.at(-1).text).toMatch(/12 rounds .* waiting for you/);
    const second = await gateway.send('go on');
    expect(model.requests).toHaveLength(24);
    expect(second.body.replies.at(-1).text).toMatch(/waiting for you/);
  });
});

describe('tool calls of one round', () => {
  it('run read-only calls together and other calls one after another, results in call order', async () => {
    const concurrency: Record<string, { now: number; max: number }> = {};
    const probe = (name: string, readOnly: boolean): Tool => ({
      name,
      description: 'Records how many calls of it run at once.',
      parameters: Type.Object({ n: Type.Integer({ description: 'Call number.' }) }),
      readOnly,
      async execute(input: any) {
        const counter = concurrency[name] ?? { now: 0, max: 0 };
        concurrency[name] = counter;
        counter.now += 1;
        counter.max = Math.max(counter.max, counter.now);
        for (let tick = 0; tick < 5; tick++) await new Promise((resolve) => setImmediate(resolve));
        counter.now -= 1;
        return { ok: true, n: input.n };
      },
    });
    const { gateway, model } = await setup({
      tools: [probe('probe.read', true), probe('probe.write', false)],
    });
    const calls = (name: string) => [1, 2, 3].map((n) => ({ name, arguments: { n }, id: `${name}-${n}` }));
    model.push({ toolCalls: [...calls('probe.read'), ...calls('probe.write')] });
    model.push({ text: 'done' });
    await gateway.send('probe');
    expect(concurrency['probe.read']?.max).toBe(3);
    expect(concurrency['probe.write']?.max).toBe(1);
    const results = model.requests[1].messages.filter((message: any) => message.role === 'tool');
    expect(results.map((message: any) => JSON.parse(message.content).n)).toEqual([1, 2, 3, 1, 2, 3]);
  });
});

describe('the system prompt', () => {
  it("tells the model who it is, where, who is talking, its tools and the agent's instructions", async () => {
    const dir = await makeTempDir('switchboard-prompt-');
    cleanups.push(() => removeDir(dir));
    await mkdir(path.join(dir, 'prompts'));
    await writeFile(path.join(dir, 'prompts/ops.md'), 'Answer like a pager: short and precise.\n');
    const model = await startFakeOpenAIServer();
    cleanups.push(() => model.close());
    const gateway = await startTestGateway({
      dir,
      config: {
        models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url } },
        agents: { main: { model: 'fake', displayName: 'Ops Bot', systemPromptFile: 'prompts/ops.md' } },
      },
    });
    cleanups.push(() => gateway.stop());
    await gateway.send('hi', 'bob');
    const system = model.requests[0].messages[0];
    expect(system.role).toBe('system');
    expect(system.content).toContain('You are Ops Bot (agent "main")');
    expect(system.content).toContain('a direct chat with webchat:bob on webchat');
    expect(system.content).toContain('started by webchat:bob.');
    expect(system.content).toContain('- session_status:');
    expect(system.content).toContain('Answer like a pager: short and precise.');
  });
});

describe('owner-only tools', () => {
  it('are not offered to a non-owner turn and refuse a forced call; an owner turn sees them', async () => {
    const { gateway, model } = await setup();
    model.push({ toolCalls: [{ name: 'owner_secret', arguments: {} }] });
    model.push({ text: 'No luck.' });
    const stranger = await gateway.send('give me the secret', 'mallory');
    expect(stranger.body.replies.at(-1).text).toBe('No luck.');
    expect(toolNamesOffered(model.requests[0])).not.toContain('owner_secret');
    expect(toolNamesOffered(model.requests[0])).toContain('math.add');
    const refused = JSON.stringify(model.requests[1]);
    expect(refused).toContain(
      'Tool owner_secret refused: webchat:mallory, role member may not call tool owner_secret: role member lacks it (roles.member.tools: *).',
    );
    expect(refused).not.toContain('owner stuff');

    model.push({ toolCalls: [{ name: 'owner_secret', arguments: {} }] });
    model.push({ text: 'Here it is.' });
    await gateway.send('give me the secret'); // `local` is the default owner
    expect(toolNamesOffered(model.requests[2])).toContain('owner_secret');
    expect(JSON.stringify(model.requests[3])).toContain('owner stuff');
  });

  it('respects the agent allowlist', async () => {
    const { gateway, model } = await setup({
      config: { agents: { main: { model: 'fake', tools: ['math.*', 'ask_user'] } } },
    });
    model.push({ toolCalls: [{ name: 'explode', arguments: {} }] });
    model.push({ text: 'ok' });
    await gateway.send('try it');
    expect(toolNamesOffered(model.requests[0]).sort()).toEqual(['ask_user', 'math.add']);
    expect(JSON.stringify(model.requests[1])).toContain('Unknown tool \\"explode\\"');
  });
});

describe('model failures', () => {
  it('retries a 429 and answers', async () => {
    const { gateway, model } = await setup();
    model.push({ status: 429, retryAfterMs: 5 }, { text: 'after the retry' });
    const response = await gateway.send('hello');
    expect(response.body.replies.map((reply: any) => reply.text)).toEqual(['after the retry']);
    expect(model.requests).toHaveLength(2);
  });

  it('ends the turn with a readable error after repeated 500s, and keeps working', async () => {
    const { gateway, model } = await setup({ model: { maxRetries: 2 } });
    model.push(...Array.from({ length: 3 }, () => ({ status: 500, retryAfterMs: 5, errorMessage: 'boom' })));
    const response = await gateway.send('hello');
    expect(model.requests).toHaveLength(3);
    const text = response.body.replies.at(-1).text as string;
    expect(text).toContain('Model "fake"');
    expect(text).toContain(model.url);
    expect(text).toContain('500');
    expect(text).not.toContain('sk-test-key-123');
    model.push({ text: 'back again' });
    expect((await gateway.send('and now?')).body.replies.at(-1).text).toBe('back again');
  });

  it('names the URL of a model server that does not answer', async () => {
    const port = await freePort();
    const { gateway } = await setup({ model: { baseUrl: `http://127.0.0.1:${port}/v1`, maxRetries: 0 } });
    const response = await gateway.send('hello?');
    expect(response.body.replies.at(-1).text).toContain(`http://127.0.0.1:${port}/v1`);
  });
});

describe('aborting and steering', () => {
  it('/stop aborts a turn whose model is slow', async () => {
    const { gateway, model } = await setup();
    model.push({ hang: true });
    const pending = gateway.send('take your time');
    await model.waitForRequests(1);
    const stop = await gateway.send('/stop');
    expect(stop.body.replies[0].text).toBe('Stopped the running turn.');
    await pending;
    await model.received[0]?.disconnected;
    model.push({ text: 'fresh start' });
    expect((await gateway.send('hello again')).body.replies.at(-1).text).toBe('fresh start');
    expect(gateway.logLines.some((line) => line.includes('"run ended"') && line.includes('"killed"'))).toBe(
      true,
    );
  });

  it('steer mode injects a message that arrives mid-turn before the next model call', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started!: () => void;
    const toolStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const slowTool: Tool = {
      name: 'slow_lookup',
      description: 'Takes a while.',
      parameters: Type.Object({}),
      async execute() {
        started();
        await released;
        return { ok: true, found: 'nothing yet' };
      },
    };
    const { gateway, model } = await setup({
      config: { session: { queueMode: 'steer' } },
      tools: [slowTool],
    });
    model.push({ toolCalls: [{ name: 'slow_lookup', arguments: {} }] });
    model.push({ text: 'Checked the logs too.' });
    const first = gateway.send('look something up');
    await toolStarted;
    const second = gateway.send('also check the logs');
    // The steered message waits for the running turn to take it.
    await expect
      .poll(async () => (await gateway.send('/status')).body.replies[0].text)
      .toContain('queue: 1 waiting');
    release();
    const [firstResponse, secondResponse] = await Promise.all([first, second]);
    expect(model.requests).toHaveLength(2);
    const lastMessages = JSON.stringify(model.requests[1].messages.slice(-2));
    expect(lastMessages).toContain('nothing yet');
    expect(lastMessages).toContain('also check the logs');
    expect(firstResponse.body.replies.at(-1).text).toBe('Checked the logs too.');
    expect(secondResponse.body.replies.at(-1).text).toBe('Checked the logs too.');
    // Written when the turn took it: after the tool result, before the answer to it.
    const entries = await transcript(gateway, 'agent:main:webchat:direct:local');
    expect(entries.map((entry) => entry.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant']);
  });

  it('interrupt mode aborts the running turn and answers the new message', async () => {
    const { gateway, model } = await setup({ config: { session: { queueMode: 'interrupt' } } });
    model.push({ hang: true }, { text: 'answering the new one' });
    const first = gateway.send('a long question');
    await model.waitForRequests(1);
    const second = await gateway.send('never mind, something else');
    expect(second.body.replies.at(-1).text).toBe('answering the new one');
    await first;
    expect(JSON.stringify(model.requests[1].messages)).toContain('never mind, something else');
    expect(
      gateway.logLines.some((line) => line.includes('"run ended"') && line.includes('"interrupted"')),
    ).toBe(true);
  });

  it('times a run out after agentLoop.runTimeoutSeconds', async () => {
    const { gateway, model } = await setup({ config: { agentLoop: { runTimeoutSeconds: 1 } } });
    model.push({ hang: true });
    const response = await gateway.send('this will hang');
    expect(response.body.replies.at(-1).text).toMatch(/timed out after 1 s/);
  });
});

describe('streaming', () => {
  it("shows the model's text in the web chat as it arrives, and completes it when the turn is stopped", async () => {
    const { gateway, model } = await setup();
    const events = await openEvents(gateway, 'local');
    model.push({ text: 'Thinking about it', stall: true });
    const pending = gateway.send('a hard question');
    await expect
      .poll(() =>
        events.events.filter((event) => event.type === 'reply.delta').map((event) => event.data.delta),
      )
      .toEqual(['Thinking about it']);
    expect(events.events.some((event) => event.type === 'reply')).toBe(false);
    await gateway.send('/stop');
    await pending;
    await expect
      .poll(() => events.events.filter((event) => event.type === 'reply').map((event) => event.data.text))
      .toContain('Thinking about it\n\n[stopped]');
  });
});
