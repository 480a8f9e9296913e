import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import type { Config } from '../../src/base/config/index.js';
import { createLogger } from '../../src/base/logging/index.js';
import { createFailoverProvider, createFailoverState } from '../../src/engine/agents/failover/index.js';
import {
  ModelCallError,
  type ModelProvider,
  type ModelRequest,
} from '../../src/engine/agents/providers/index.js';
import { type CallTarget, runModelCall } from '../../src/engine/agents/providers/model-call.js';

/**
 * Model failover in this process: which final failures may fail over (the real SDK error
 * classes through the real retry loop), and the chain over providers that fail on cue.
 */

const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });
const SDK = { APIError, APIConnectionError, APIConnectionTimeoutError };

const target: CallTarget = {
  name: 'a',
  description: 'openai fake at http://127.0.0.1:1/v1',
  url: 'http://127.0.0.1:1/v1',
  apiKey: 'sk-secret-key-1234',
  maxRetries: 0,
  timeoutMs: 1000,
  logger,
  sdkErrors: SDK,
};

const request = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  system: '',
  messages: [{ role: 'user', content: 'hi' }],
  tools: [],
  signal: new AbortController().signal,
  ...extra,
});

/**
 * The ModelCallError a call ends with when every attempt throws `error`; `started`: the answer's
 * stream had begun, `shown`: and some of its text had been handed to the chat.
 */
async function finalError(error: () => unknown, options: { started?: boolean; shown?: boolean } = {}) {
  const failure = await runModelCall(target, request({ onTextDelta: () => {} }), async (call) => {
    if (options.started || options.shown) call.alive();
    if (options.shown) call.request.onTextDelta?.('Hel');
    throw error();
  }).catch((caught: unknown) => caught);
  expect(failure).toBeInstanceOf(ModelCallError);
  return failure as ModelCallError;
}

/** An error event inside a begun Anthropic stream, as its SDK throws it (no status). */
const streamedError = (type: string) =>
  new APIError(undefined, { type: 'error', error: { type, message: type } }, undefined, new Headers());

const httpError = (status: number, headers: Record<string, string> = {}) =>
  APIError.generate(status, { message: `scripted ${status}` }, undefined, new Headers(headers));

describe('which failures fail over', () => {
  for (const status of [429, 500, 502, 503, 529, 408]) {
    it(`HTTP ${status} does`, async () => {
      const error = await finalError(() => httpError(status));
      expect(error).toMatchObject({ failover: true, status, model: 'a' });
      expect(error.message).toContain('http://127.0.0.1:1/v1');
    });
  }
  for (const status of [400, 401, 403, 404, 422]) {
    it(`HTTP ${status} does not`, async () => {
      expect(await finalError(() => httpError(status))).toMatchObject({ failover: false, status });
    });
  }
  it('a connection refused and a timeout do', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const connection = await finalError(() => new APIConnectionError({ cause: refused }));
    expect(connection).toMatchObject({ failover: true, reason: 'could not connect (ECONNREFUSED)' });
    expect(await finalError(() => new APIConnectionTimeoutError())).toMatchObject({ failover: true });
  });
  it('an overload reported inside a begun stream does, unless some of its text reached the chat', async () => {
    const overloaded = () => streamedError('overloaded_error');
    expect(await finalError(overloaded, { started: true })).toMatchObject({ failover: true });
    expect(await finalError(overloaded, { shown: true })).toMatchObject({ failover: false });
    expect(await finalError(() => streamedError('invalid_request_error'), { started: true })).toMatchObject({
      failover: false,
    });
  });
  it('an answer whose text reached the chat never does, whatever the error', async () => {
    expect(await finalError(() => httpError(503), { shown: true })).toMatchObject({ failover: false });
    const broken = () => new APIConnectionError({ message: 'terminated' });
    expect(await finalError(broken, { shown: true })).toMatchObject({ failover: false });
  });
  it("keeps the server's retry-after, also one too long to wait for, and never the key", async () => {
    const error = await finalError(() => httpError(429, { 'retry-after': '120' }));
    expect(error.retryAfterMs).toBe(120_000);
    const quoting = await finalError(() =>
      APIError.generate(400, { message: 'bad key sk-secret-key-1234' }, undefined, new Headers()),
    );
    expect(`${quoting.message} ${quoting.reason}`).not.toContain('sk-secret-key-1234');
  });
  it("takes the request's retries over the model's", async () => {
    let attempts = 0;
    const failure = await runModelCall(target, request({ maxRetries: 1 }), async () => {
      attempts += 1;
      throw httpError(500, { 'retry-after-ms': '1' });
    }).catch((caught: unknown) => caught);
    expect(attempts).toBe(2);
    expect(failure).toMatchObject({ attempts: 2 });
  });
});

/** A provider that answers `name: <text>` unless the test made it fail. */
function fakeModel(name: string) {
  const calls: ModelRequest[] = [];
  let failure: (() => Error) | undefined;
  const provider: ModelProvider = {
    name,
    description: `fake ${name}`,
    async complete(call) {
      calls.push(call);
      if (failure) throw failure();
      return { text: `${name} here`, toolCalls: [], stopReason: 'end' };
    },
  };
  return {
    provider,
    calls,
    fail(next?: () => Error) {
      failure = next;
    },
  };
}

const callError = (model: string, options: { status?: number; failover: boolean; retryAfterMs?: number }) =>
  new ModelCallError({
    model,
    url: `http://${model}.test/v1`,
    attempts: 1,
    message: `Model "${model}" (fake) failed: HTTP ${options.status ?? 0}.`,
    reason: `HTTP ${options.status ?? 0}`,
    ...options,
  });

function chainOf(names: string[], models: Config['models'] = {}) {
  let clock = Date.parse('2026-12-06T12:00:00Z');
  const state = createFailoverState({ now: () => clock });
  const fakes = Object.fromEntries(names.map((name) => [name, fakeModel(name)]));
  const providers = new Map(names.map((name) => [name, fakes[name]?.provider as ModelProvider]));
  const turn = () =>
    createFailoverProvider({ agentId: 'main', chain: names, providers, models, state, logger });
  return {
    fakes: fakes as Record<string, ReturnType<typeof fakeModel>>,
    state,
    turn,
    advance(ms: number) {
      clock += ms;
    },
  };
}

describe('the model chain', () => {
  it('goes on to the fallback after a 503, says which answered and why, and gives the first one retry', async () => {
    const { fakes, turn, state } = chainOf(['a', 'b']);
    fakes.a?.fail(() => callError('a', { status: 503, failover: true }));
    const provider = turn();
    const response = await provider.complete(request());
    expect(response).toMatchObject({ text: 'b here', model: 'b' });
    expect(fakes.a?.calls[0]?.maxRetries).toBe(1);
    expect(fakes.b?.calls[0]?.maxRetries).toBeUndefined();
    expect(provider.fallback()).toEqual({ model: 'b', why: '"a" failed: HTTP 503' });
    expect(provider.answered()).toEqual(['b']);
    expect(state.lastFailover()).toMatchObject({
      agentId: 'main',
      from: 'a',
      to: 'b',
      why: '"a" failed: HTTP 503',
    });
    // The rest of the turn starts at the fallback.
    await provider.complete(request());
    expect(fakes.a?.calls).toHaveLength(1);
    expect(fakes.b?.calls).toHaveLength(2);
  });

  it("keeps a model's configured retries", async () => {
    const { fakes, turn } = chainOf(['a', 'b'], { a: { maxRetries: 4 } } as unknown as Config['models']);
    await turn().complete(request());
    expect(fakes.a?.calls[0]?.maxRetries).toBe(4);
  });

  it('does not fail over on a 400: the next model is not called and the error is the first one', async () => {
    const { fakes, turn, state } = chainOf(['a', 'b']);
    const refused = callError('a', { status: 400, failover: false });
    fakes.a?.fail(() => refused);
    await expect(turn().complete(request())).rejects.toBe(refused);
    expect(fakes.b?.calls).toHaveLength(0);
    expect(state.lastFailover()).toBeUndefined();
  });

  it('skips a model cooling down after a 429 with retry-after, and calls it again once the cooldown ended', async () => {
    const { fakes, turn, state, advance } = chainOf(['a', 'b']);
    fakes.a?.fail(() => callError('a', { status: 429, failover: true, retryAfterMs: 120_000 }));
    expect((await turn().complete(request())).model).toBe('b');
    expect(state.cooldowns()).toEqual([{ model: 'a', until: state.now() + 120_000 }]);
    fakes.a?.fail();
    const next = turn();
    expect((await next.complete(request())).model).toBe('b');
    expect(next.fallback()?.why).toBe('"a" is cooling down until 12:02:00 UTC');
    expect(fakes.a?.calls).toHaveLength(1);
    advance(120_001);
    const response = await turn().complete(request());
    expect(response).toEqual({ text: 'a here', toolCalls: [], stopReason: 'end' });
    expect(fakes.a?.calls).toHaveLength(2);
  });

  it('says when each model is back when every one is cooling down, and calls none', async () => {
    const { fakes, turn, state } = chainOf(['a', 'b']);
    state.coolDown('a', state.now() + 60_000);
    state.coolDown('b', state.now() + 30_000);
    const error = await turn()
      .complete(request())
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelCallError);
    expect((error as Error).message).toBe(
      'Every model of agent "main" is cooling down after a rate limit (HTTP 429): "a" until 12:01:00 UTC, "b" until 12:00:30 UTC. Try again after 12:00:30 UTC.',
    );
    expect(fakes.a?.calls.length ?? 0).toBe(0);
    expect(fakes.b?.calls.length ?? 0).toBe(0);
  });

  it('tells every failure when the last model fails too', async () => {
    const { fakes, turn } = chainOf(['a', 'b']);
    fakes.a?.fail(() => callError('a', { status: 500, failover: true }));
    fakes.b?.fail(() => callError('b', { status: 502, failover: true }));
    const error = (await turn()
      .complete(request())
      .catch((caught: unknown) => caught)) as ModelCallError;
    expect(error.message).toBe('Model "a" (fake) failed: HTTP 500. Model "b" (fake) failed: HTTP 502.');
    expect(error).toMatchObject({ failover: false, attempts: 2, model: 'b' });
  });

  it('passes an abort on at once, without trying the fallback', async () => {
    const { fakes, turn } = chainOf(['a', 'b']);
    const reason = new Error('stopped');
    fakes.a?.fail(() => reason);
    await expect(turn().complete(request())).rejects.toBe(reason);
    expect(fakes.b?.calls).toHaveLength(0);
  });
});
