import { Type } from '@sinclair/typebox';
import type { GatewayExtensions } from '../src/app/index.js';
import { createModelProvider, type ModelProvider } from '../src/engine/agents/providers/index.js';
import type { Tool } from '../src/engine/tools/index.js';
import type { FakeRequest, FakeStep } from '../test/fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../test/fakes/fake-openai-server.js';
import { createFailureTally } from './load.js';

/**
 * The pieces of the agent benches (agent.ts, durable-agent.ts): the instant model, a model clock
 * that wraps the real providers, the free tool, the stateless fake-model script, and a web chat
 * driver that checks each reply.
 */

/** Time spent inside `ModelProvider.complete` (SDK + HTTP + fake server), summed over all calls. */
export interface ModelClock {
  ms: number;
  calls: number;
}

export function timed(provider: ModelProvider, clock: ModelClock): ModelProvider {
  return {
    name: provider.name,
    description: provider.description,
    async complete(request) {
      const started = performance.now();
      try {
        return await provider.complete(request);
      } finally {
        clock.ms += performance.now() - started;
        clock.calls += 1;
      }
    },
  };
}

/** The instant model of an agent cell: a fake OpenAI server, its clock and what a gateway needs to use it. */
export interface InstantModel {
  clock: ModelClock;
  /** `models` and `agents` for the gateway's config. */
  config: Record<string, unknown>;
  /** The echo tool and the timed provider. */
  extensions: Pick<GatewayExtensions, 'tools' | 'createModelProvider'>;
  close(): Promise<void>;
}

/**
 * Starts a fake OpenAI server that answers at once with `rounds` tool rounds, for the real
 * OpenAI SDK behind a provider timed by `clock`.
 */
export async function startInstantModel(rounds: number): Promise<InstantModel> {
  const step = scriptedStep(rounds);
  const fake = await startFakeOpenAIServer({
    defaultStep: (request) => {
      // The fake server keeps every request; drop them so thousands of turns do not grow the heap.
      fake.received.length = 0;
      return step(request);
    },
  });
  const clock: ModelClock = { ms: 0, calls: 0 };
  return {
    clock,
    config: {
      models: { bench: { provider: 'openai', model: 'bench', baseUrl: fake.url, apiKey: 'bench' } },
      agents: { main: { model: 'bench' } },
    },
    extensions: {
      tools: [echoTool],
      createModelProvider: async (options) => timed(await createModelProvider(options), clock),
    },
    close: () => fake.close(),
  };
}

/** A read-only tool that costs nothing: it returns its input. */
export const echoTool: Tool = {
  name: 'bench.echo',
  description: 'Returns its input unchanged.',
  parameters: Type.Object({ text: Type.String() }, { additionalProperties: false }),
  readOnly: true,
  execute: (input) => input,
};

export const finalText = (rounds: number) => `done after ${rounds} tool rounds`;

/**
 * The fake model, stateless: it counts the tool results after the last user message and calls
 * `bench.echo` until there are `rounds` of them, then answers with the final text.
 */
export function scriptedStep(rounds: number): (request: FakeRequest) => FakeStep {
  return (request) => {
    const messages: { role?: unknown }[] = Array.isArray(request.body?.messages) ? request.body.messages : [];
    const lastUser = messages.findLastIndex((message) => message.role === 'user');
    const done = messages.slice(lastUser + 1).filter((message) => message.role === 'tool').length;
    if (done >= rounds) return { text: finalText(rounds) };
    const round = done + 1;
    return {
      toolCalls: [{ id: `call_${round}`, name: echoTool.name, arguments: { text: `round ${round}` } }],
    };
  };
}

export interface TurnOptions {
  url: string;
  token: string;
  /** Turn i goes to users[i % users.length]. */
  users: readonly string[];
  turns: number;
  concurrency: number;
  rounds: number;
  clock: ModelClock;
}

export interface TurnResult {
  turns: number;
  elapsedMs: number;
  /** Client-measured, request to parsed response, per turn. */
  latencies: Float64Array;
  /** Model time within each turn; only meaningful with concurrency 1. */
  modelMs: Float64Array;
  /** Model calls over all turns (expected: turns × (rounds + 1)). */
  modelCalls: number;
  /** Not 200, no reply, a last reply other than the final text, or (concurrency 1) a wrong call count. */
  failures: number;
  firstFailure: string | undefined;
  sessionKeys: Set<string>;
}

interface WebchatResponse {
  sessionKey?: unknown;
  replies?: { text?: unknown }[];
}

/** Sends `turns` web chat messages, at most `concurrency` in flight, and checks every answer. */
export async function runTurns(options: TurnOptions): Promise<TurnResult> {
  const endpoint = `${options.url}/api/webchat/messages`;
  const headers = { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' };
  const expected = finalText(options.rounds);
  const { clock } = options;
  const latencies = new Float64Array(options.turns);
  const modelMs = new Float64Array(options.turns);
  const sessionKeys = new Set<string>();
  const callsBefore = clock.calls;
  let next = 0;
  const { fail, tally } = createFailureTally();

  async function worker(): Promise<void> {
    while (next < options.turns) {
      const index = next++;
      const user = options.users[index % options.users.length] ?? 'local';
      const body = JSON.stringify({ text: `turn ${index}: please use the tool`, user });
      const modelBefore = clock.ms;
      const calls = clock.calls;
      const started = performance.now();
      try {
        const response = await fetch(endpoint, { method: 'POST', headers, body });
        const text = await response.text();
        latencies[index] = performance.now() - started;
        modelMs[index] = clock.ms - modelBefore;
        if (response.status !== 200) {
          fail(`HTTP ${response.status}: ${text.slice(0, 200)}`);
          continue;
        }
        const parsed = JSON.parse(text) as WebchatResponse;
        if (typeof parsed.sessionKey === 'string') sessionKeys.add(parsed.sessionKey);
        if (!Array.isArray(parsed.replies) || parsed.replies.at(-1)?.text !== expected) {
          fail(`unexpected reply: ${text.slice(0, 200)}`);
        } else if (options.concurrency === 1 && clock.calls - calls !== options.rounds + 1) {
          fail(`${clock.calls - calls} model calls, expected ${options.rounds + 1}`);
        }
      } catch (error) {
        latencies[index] = performance.now() - started;
        fail(error instanceof Error ? error.message : String(error));
      }
    }
  }

  const started = performance.now();
  await Promise.all(Array.from({ length: options.concurrency }, () => worker()));
  const elapsedMs = performance.now() - started;
  return {
    turns: options.turns,
    elapsedMs,
    latencies,
    modelMs,
    modelCalls: clock.calls - callsBefore,
    ...tally,
    sessionKeys,
  };
}
