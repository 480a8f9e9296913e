import { Type } from '@sinclair/typebox';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { validateConfig } from '../../src/base/config/index.js';
import { createLogger } from '../../src/base/logging/index.js';
import type { OutboundMessage } from '../../src/base/messages/index.js';
import {
  createAgentRunner,
  ModelCallError,
  TurnAbort,
  type TurnRequest,
} from '../../src/engine/agents/index.js';
import {
  createToolRegistry,
  GATEWAY_TOOLS,
  type Tool,
  type ToolServices,
} from '../../src/engine/tools/index.js';
import {
  createRunStore,
  createSessionStore,
  type TranscriptEntry,
} from '../../src/records/sessions/index.js';
import { createStore } from '../../src/records/store/index.js';
import {
  answer,
  callTools,
  createScriptedProvider,
  type ScriptStep,
  streamUntilAborted,
} from '../fakes/scripted-provider.js';

/**
 * The agent runner and its tool loop in this process: a scripted model provider, the real tool
 * registry (the built-in tools and a few of the test's own) and session and run stores on the
 * memory store. No HTTP, no timers.
 */

const logger = createLogger({ level: 'silent' }).logger;
const SESSION = 'agent:main:webchat:direct:local';
const ROUTE = { channel: 'webchat', chatType: 'direct', chatId: 'local' } as const;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** What the tools of the test did, in order. */
const events: string[] = [];
afterEach(() => {
  events.length = 0;
  vi.useRealTimers();
});

const testTools: Tool[] = [
  {
    name: 'add',
    description: 'Adds two numbers.',
    parameters: Type.Object({ a: Type.Number(), b: Type.Number() }, { additionalProperties: false }),
    execute: (input: { a: number; b: number }) => ({ sum: input.a + input.b }),
  },
  {
    name: 'explode',
    description: 'Always fails.',
    parameters: Type.Object({}),
    execute: () => {
      throw new Error('the fuse was lit');
    },
  },
  {
    name: 'peek',
    description: 'Reads something.',
    parameters: Type.Object({ what: Type.String() }),
    readOnly: true,
    async execute(input: { what: string }) {
      events.push(`start ${input.what}`);
      await Promise.resolve();
      events.push(`end ${input.what}`);
      return { seen: input.what };
    },
  },
  {
    name: 'poke',
    description: 'Changes something.',
    parameters: Type.Object({ what: Type.String() }),
    async execute(input: { what: string }) {
      events.push(`start ${input.what}`);
      await Promise.resolve();
      events.push(`end ${input.what}`);
      return { poked: input.what };
    },
  },
];

/** A service the tools under test never reach. */
function unused(): never {
  throw new Error('not used by the tools under test');
}
const services: ToolServices = {
  sessions: { list: unused, details: unused },
  gateway: {
    configGet: unused,
    schemaLookup: unused,
    configEdit: unused,
    configPreview: unused,
    configHistory: unused,
    configChange: unused,
    configUndo: unused,
    restart: unused,
    restartAllowed: unused,
  },
  subagents: { spawn: unused, act: unused },
};

async function setup(steps: readonly ScriptStep[], agentLoop: Record<string, unknown> = {}) {
  const validated = validateConfig({
    models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: 'http://127.0.0.1:9/v1' } },
    agents: { main: { model: 'fake', tools: ['*'] }, bare: {} },
    agentLoop,
  });
  if (!validated.ok) throw new Error(JSON.stringify(validated.error));
  const config = validated.value;
  const store = await createStore({ url: 'memory://', stateDir: '/nonexistent', logger });
  cleanups.push(() => store.close());
  const sessions = createSessionStore({ store });
  const runs = createRunStore({ store });
  const registry = createToolRegistry();
  for (const tool of [...GATEWAY_TOOLS, ...testTools]) registry.register(tool, 'test');
  const { provider, requests } = createScriptedProvider(steps);
  const runner = createAgentRunner({
    config,
    configPath: '/nonexistent/switchboard.json',
    providers: new Map([['fake', provider]]),
    registry,
    services,
    sessions,
    runs,
    instructions: new Map(),
  });
  await sessions.ensure(SESSION, { agentId: 'main', route: ROUTE });
  const replies: OutboundMessage[] = [];
  const deltas: { id: string; delta: string }[] = [];
  const steered: string[] = [];
  const controller = new AbortController();

  /** A user message, written to the transcript, and the turn that answers it. */
  async function turn(text: string, overrides: Partial<TurnRequest> = {}) {
    const entry = await sessions.append(SESSION, { role: 'user', text, senderId: 'webchat:local' });
    const request: TurnRequest = {
      sessionKey: SESSION,
      agentId: 'main',
      agent: config.agents.main ?? unused(),
      route: ROUTE,
      depth: 0,
      senderId: 'webchat:local',
      isOwner: true,
      messages: [entry],
      signal: controller.signal,
      ...overrides,
    };
    const stream = runner.runTurn(request, {
      logger,
      record: (recorded) => sessions.append(SESSION, recorded),
      takeSteered: async () => {
        const taken: TranscriptEntry[] = [];
        for (const steer of steered.splice(0))
          taken.push(
            await sessions.append(SESSION, { role: 'user', text: steer, senderId: 'webchat:local' }),
          );
        return taken;
      },
    });
    for await (const event of stream) {
      if (event.type === 'text_delta') deltas.push({ id: event.replyId, delta: event.delta });
      if (event.type === 'reply') replies.push(event.message);
    }
    const result = await stream.result;
    const run = result.runId === undefined ? undefined : await runs.get(result.runId);
    return { result, run };
  }

  const transcript = () => sessions.transcript(SESSION);
  return { config, runner, turn, transcript, requests, replies, deltas, steered, controller };
}

/** The tool results of a transcript, as role/name/error/text. */
async function toolResults(transcript: () => Promise<TranscriptEntry[]>) {
  return (await transcript())
    .filter((entry) => entry.role === 'tool')
    .map((entry) => ({ name: entry.toolName, isError: entry.isError ?? false, text: entry.text }));
}

describe('the tool loop (in process)', () => {
  it('sends a text answer to the chat and the transcript, and records the run', async () => {
    const rig = await setup([answer('Hello there.')]);
    const { result, run } = await rig.turn('hi');
    expect(result.status).toBe('done');
    expect(rig.replies.map((reply) => reply.text)).toEqual(['Hello there.']);
    const last = (await rig.transcript()).at(-1);
    expect(last).toMatchObject({ role: 'assistant', text: 'Hello there.', runId: result.runId });
    expect(run).toMatchObject({ status: 'done', rounds: 1, toolCalls: 0, answeredBy: ['fake'] });
    expect(rig.requests[0]?.messages).toEqual([{ role: 'user', content: 'hi' }]);
    expect(rig.requests[0]?.tools.map((tool) => tool.name)).toContain('add');
  });

  it('runs a tool call and gives the result back to the model, which answers', async () => {
    const rig = await setup([callTools(['add', { a: 2, b: 3 }]), answer('It is 5.')]);
    const { run } = await rig.turn('2+3?');
    expect(await toolResults(rig.transcript)).toEqual([{ name: 'add', isError: false, text: '{"sum":5}' }]);
    const second = rig.requests[1]?.messages ?? [];
    expect(second.at(-1)).toMatchObject({ role: 'tool', toolName: 'add', content: '{"sum":5}' });
    expect(second.at(-2)).toMatchObject({ role: 'assistant', toolCalls: [{ name: 'add' }] });
    expect(rig.replies.map((reply) => reply.text)).toEqual(['It is 5.']);
    expect(run).toMatchObject({ status: 'done', rounds: 2, toolCalls: 1 });
  });

  it('gives invalid arguments back to the model as an error result', async () => {
    const rig = await setup([
      callTools(['add', { a: 'two', b: 3 }], ['add', '{not json'], ['nope', {}]),
      answer('Sorry.'),
    ]);
    await rig.turn('2+3?');
    const [schema, json, unknown] = await toolResults(rig.transcript);
    expect(schema).toMatchObject({ name: 'add', isError: true });
    expect(schema?.text).toMatch(/^Invalid arguments for add:\n\/a: .*\nFix the arguments and call again\.$/);
    expect(json?.text).toMatch(/^Invalid arguments for add: the arguments are not valid JSON/);
    expect(unknown?.text).toMatch(/^Unknown tool "nope"\. Tools you can call: .*add/);
  });

  it('turns a throwing tool into an error result and goes on', async () => {
    const rig = await setup([callTools(['explode', {}]), answer('That failed.')]);
    const { result } = await rig.turn('go');
    expect(await toolResults(rig.transcript)).toEqual([
      {
        name: 'explode',
        isError: true,
        // The stack follows the message (issue 35).
        text: expect.stringMatching(/^Tool explode failed: the fuse was lit\nStack:\n {2}at /),
      },
    ]);
    expect(result.status).toBe('done');
    expect(rig.replies.at(-1)?.text).toBe('That failed.');
  });

  it('runs consecutive read-only calls together and the others one after another, results in call order', async () => {
    const rig = await setup([
      callTools(
        ['peek', { what: 'a' }],
        ['peek', { what: 'b' }],
        ['poke', { what: 'c' }],
        ['peek', { what: 'd' }],
      ),
      answer('Done.'),
    ]);
    await rig.turn('look');
    expect(events).toEqual(['start a', 'start b', 'end a', 'end b', 'start c', 'end c', 'start d', 'end d']);
    expect((await toolResults(rig.transcript)).map((result) => result.text)).toEqual([
      '{"seen":"a"}',
      '{"seen":"b"}',
      '{"poked":"c"}',
      '{"seen":"d"}',
    ]);
  });

  it('stops after maxBurst rounds, says so, and counts the burst; a new turn starts its own', async () => {
    const rig = await setup([callTools(['add', { a: 1, b: 1 }])], { maxBurst: 3 });
    const { result, run } = await rig.turn('loop');
    expect(rig.requests).toHaveLength(3);
    expect(result.status).toBe('done');
    expect(run).toMatchObject({ status: 'done', rounds: 3, toolCalls: 3, outcome: 'max burst reached' });
    expect(rig.replies.at(-1)?.text).toMatch(/^I have used 3 rounds of model calls and tools/);
    expect((await rig.transcript()).at(-1)).toMatchObject({ role: 'system' });
    expect(rig.runner.activity(SESSION)).toEqual({ burst: 3 });
    await rig.turn('again');
    expect(rig.requests).toHaveLength(6);
  });

  it('resets the burst when it takes a steered message, which the model sees before its next call', async () => {
    const rig = await setup(
      [
        (request) => {
          if (rig.requests.length === 2) rig.steered.push('also this');
          return callTools(['add', { a: 1, b: 1 }])(request);
        },
      ],
      { maxBurst: 3 },
    );
    await rig.turn('loop');
    // Rounds 1–2, then the steered message resets the count: three more rounds.
    expect(rig.requests).toHaveLength(5);
    expect(rig.requests[2]?.messages.at(-1)).toEqual({ role: 'user', content: 'also this' });
    expect(rig.requests[1]?.messages.some((message) => message.content === 'also this')).toBe(false);
  });

  it('ends a stopped run as killed and completes the reply it was streaming', async () => {
    const rig = await setup([
      (request) => {
        const pending = streamUntilAborted('Let me thi')(request);
        rig.controller.abort(new TurnAbort('killed', 'stopped by /stop'));
        return pending;
      },
    ]);
    const { result, run } = await rig.turn('think');
    expect(result.status).toBe('killed');
    expect(run).toMatchObject({ status: 'killed', rounds: 1, outcome: 'stopped by /stop' });
    const [delta] = rig.deltas;
    expect(rig.replies).toEqual([{ id: delta?.id, text: 'Let me thi\n\n[stopped]' }]);
    expect((await rig.transcript()).at(-1)).toMatchObject({
      role: 'assistant',
      text: 'Let me thi\n\n[stopped]',
    });
  });

  it('ends an interrupted run as interrupted; nothing streamed means nothing sent', async () => {
    const rig = await setup([
      (request) => {
        const pending = streamUntilAborted('')(request);
        rig.controller.abort(new TurnAbort('interrupted', 'a newer message interrupted the run'));
        return pending;
      },
    ]);
    const { result, run } = await rig.turn('think');
    expect(result.status).toBe('interrupted');
    expect(run?.outcome).toBe('a newer message interrupted the run');
    expect(rig.replies).toEqual([]);
  });

  it('ends the run at ask_user: the question is posted and later calls of the round are not run', async () => {
    const rig = await setup([
      callTools(['ask_user', { question: 'Which one?', options: ['red', 'blue'] }], ['add', { a: 1, b: 2 }]),
      answer('never reached'),
    ]);
    const { result, run } = await rig.turn('pick');
    expect(result.status).toBe('done');
    expect(rig.requests).toHaveLength(1);
    expect(rig.replies.map((reply) => reply.text)).toEqual(['Which one?\n1. red\n2. blue']);
    const [asked, skipped] = await toolResults(rig.transcript);
    expect(asked).toMatchObject({ name: 'ask_user', isError: false });
    expect(skipped).toEqual({
      name: 'add',
      isError: true,
      text: 'Not run: an earlier call in this round ended the run before add.',
    });
    expect(run).toMatchObject({ rounds: 1, toolCalls: 2 });
  });

  it('streams the reply as deltas under the id of the reply that completes it', async () => {
    const rig = await setup([answer('Hello, world.', ['Hel', 'lo, ', 'world.'])]);
    await rig.turn('hi');
    expect(rig.deltas.map((delta) => delta.delta)).toEqual(['Hel', 'lo, ', 'world.']);
    const ids = new Set(rig.deltas.map((delta) => delta.id));
    expect(ids.size).toBe(1);
    expect(rig.replies).toEqual([{ id: [...ids][0], text: 'Hello, world.' }]);
  });

  it('hides owner-only tools from a non-owner turn', async () => {
    const rig = await setup([answer('ok')]);
    await rig.turn('hi', { isOwner: false });
    const names = rig.requests[0]?.tools.map((tool) => tool.name) ?? [];
    expect(names).toContain('ask_user');
    expect(names).not.toContain('gateway');
  });
  it('ends a run that runs out of time as timeout, completing the streamed reply and saying so', async () => {
    const rig = await setup([
      (request) => {
        const pending = streamUntilAborted('Half an ans')(request);
        vi.advanceTimersByTime(2000);
        return pending;
      },
    ]);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { result, run } = await rig.turn('slow', { runTimeoutSeconds: 2 });
    expect(result.status).toBe('timeout');
    expect(run).toMatchObject({ status: 'timeout', outcome: 'timed out after 2 s' });
    expect(rig.replies.map((reply) => reply.text)).toEqual([
      'Half an ans\n\n[timed out]',
      'The run timed out after 2 s.',
    ]);
  });

  it('ends a run whose model call failed as error, with the call error as the chat message', async () => {
    const message = 'Model "fake" (scripted) failed: could not connect (ECONNREFUSED) (3 attempts).';
    const rig = await setup([
      () => {
        throw new ModelCallError({ model: 'fake', url: 'http://127.0.0.1:9/v1', attempts: 3, message });
      },
    ]);
    const { result, run } = await rig.turn('hi');
    expect(result.status).toBe('error');
    expect(run).toMatchObject({ status: 'error', outcome: message });
    expect(rig.replies.map((reply) => reply.text)).toEqual([message]);
    expect((await rig.transcript()).at(-1)).toMatchObject({ role: 'system', text: message });
  });

  it('ends a run that failed on a bug as error, naming the failure', async () => {
    const rig = await setup([
      () => {
        throw new TypeError('cannot read the answer');
      },
    ]);
    const { result } = await rig.turn('hi');
    expect(result.status).toBe('error');
    expect(rig.replies.map((reply) => reply.text)).toEqual(['The run failed: cannot read the answer']);
  });

  it('answers for an agent without a model with the config keys to set, and starts no run', async () => {
    const rig = await setup([answer('never')]);
    const { result } = await rig.turn('hi', { agentId: 'bare', agent: rig.config.agents.bare ?? unused() });
    expect(result).toEqual({ status: 'done' });
    expect(rig.requests).toHaveLength(0);
    expect(rig.replies[0]?.text).toMatch(/^No model is configured for agent "bare"/);
  });
});
