import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The HTTP side of the fake model servers (fake-openai-server.ts, fake-anthropic-server.ts):
 * a real server on 127.0.0.1 that answers each request with the next scripted step, records
 * every request body, and tells the test when requests arrive and when a client disconnected
 * before its answer was complete. The dialects only turn a step into their wire format.
 */

export interface FakeToolCall {
  /** Our tool name (`schedule.once`); the dialect sends it encoded like the providers do. */
  name: string;
  arguments: Record<string, unknown> | string;
  id?: string;
}

export interface FakeStep {
  text?: string;
  toolCalls?: FakeToolCall[];
  /** Streaming: split the text into this many deltas (default 1). */
  chunks?: number;
  /** Streaming: wait this long between two frames of the text (a model writing slowly). */
  chunkDelayMs?: number;
  /** Answer with this HTTP status and a JSON error body in the dialect's shape. */
  status?: number;
  errorMessage?: string;
  /** Sent as `retry-after-ms`, which the providers honour: retries in tests stay fast. */
  retryAfterMs?: number;
  /** Sent as `retry-after` (seconds), as OpenAI and Anthropic send it with a 429. */
  retryAfter?: number;
  /** Wait before answering; ends early when the client disconnects. */
  delayMs?: number;
  /** Never answer: the request stays open until the client goes away (or the server closes). */
  hang?: boolean;
  /** Streaming: send the text, then neither finish nor close the stream. */
  stall?: boolean;
  /** Streaming: send the text, then this error event (Anthropic's `overloaded_error`) and close. */
  streamError?: string;
  usage?: { inputTokens: number; outputTokens: number };
}

export interface FakeRequest {
  /** 0-based position among all requests this server received. */
  index: number;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
  /** Resolves when the client disconnected before the answer was complete. */
  disconnected: Promise<void>;
}

/** A step function may return a promise: the answer waits for it (a test holds a request on cue). */
export type FakeScriptEntry = FakeStep | ((request: FakeRequest) => FakeStep | Promise<FakeStep>);

/** A wire format: where requests go, and how a step looks as JSON, SSE and error body. */
export interface FakeDialect {
  path: string;
  errorBody(status: number, message: string): unknown;
  reply(step: FakeStep, request: FakeRequest): unknown;
  /** SSE frames: `content` carries the text (and tool calls), `finish` ends the answer. */
  stream(step: FakeStep, request: FakeRequest): { content: string[]; finish: string[] };
  /** The SSE frame of an error inside a begun stream, for dialects that have one. */
  streamError?(type: string): string;
}

export interface FakeModelServerOptions {
  /** The answer when the script is empty; `{ text: 'ok' }` unless given. */
  defaultStep?: FakeScriptEntry;
}

export interface FakeModelServer {
  /** The base URL to put in `models.<name>.baseUrl`. */
  readonly url: string;
  /** Every request body, parsed, in arrival order. */
  readonly requests: any[];
  readonly received: FakeRequest[];
  /** How many requests ended with the client gone before the answer was complete. */
  readonly disconnects: number;
  /** Appends steps; each request takes the next one. */
  push(...steps: FakeScriptEntry[]): void;
  waitForRequests(count: number): Promise<void>;
  waitForDisconnects(count: number): Promise<void>;
  /** Stops listening and destroys open connections (including pooled keep-alive sockets). */
  close(): Promise<void>;
}

export async function startFakeModelServer(
  dialect: FakeDialect,
  basePath: string,
  options: FakeModelServerOptions = {},
): Promise<FakeModelServer> {
  const script: FakeScriptEntry[] = [];
  const received: FakeRequest[] = [];
  const requestCount = createCounter();
  const disconnectCount = createCounter();
  const sockets = new Set<Socket>();

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let gone = false;
    let markDisconnected = () => {};
    const disconnected = new Promise<void>((resolve) => {
      markDisconnected = resolve;
    });
    res.on('close', () => {
      if (res.writableFinished) return;
      gone = true;
      disconnectCount.increment();
      markDisconnected();
    });
    const text = Buffer.concat(chunks).toString('utf8');
    const request: FakeRequest = {
      index: received.length,
      path: req.url ?? '',
      headers: req.headers,
      body: parseJson(text),
      disconnected,
    };
    received.push(request);
    requestCount.increment();
    if (req.method !== 'POST' || request.path !== dialect.path) {
      return sendJson(res, 404, dialect.errorBody(404, `no route ${req.method} ${request.path}`));
    }
    const entry = script.shift() ?? options.defaultStep ?? { text: 'ok' };
    const step = typeof entry === 'function' ? await entry(request) : entry;
    // A client that left while an asynchronous step was being decided gets no answer.
    if (gone) return;
    await answer(dialect, step, request, res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  return {
    url: `http://127.0.0.1:${port}${basePath}`,
    get requests() {
      return received.map((request) => request.body);
    },
    received,
    get disconnects() {
      return disconnectCount.value;
    },
    push: (...steps) => void script.push(...steps),
    waitForRequests: (count) => requestCount.waitFor(count),
    waitForDisconnects: (count) => disconnectCount.waitFor(count),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        for (const socket of sockets) socket.destroy();
      }),
  };
}

async function answer(
  dialect: FakeDialect,
  step: FakeStep,
  request: FakeRequest,
  res: ServerResponse,
): Promise<void> {
  if (step.hang) return request.disconnected;
  if (step.delayMs) {
    const gone = new AbortController();
    void request.disconnected.then(() => gone.abort());
    await sleep(step.delayMs, undefined, { signal: gone.signal }).catch(() => {});
    if (gone.signal.aborted) return;
  }
  const headers: Record<string, string> = {
    ...(step.retryAfterMs === undefined ? {} : { 'retry-after-ms': String(step.retryAfterMs) }),
    ...(step.retryAfter === undefined ? {} : { 'retry-after': String(step.retryAfter) }),
  };
  if (step.status !== undefined && step.status >= 400) {
    const message = step.errorMessage ?? `scripted ${step.status}`;
    return sendJson(res, step.status, dialect.errorBody(step.status, message), headers);
  }
  if (request.body?.stream !== true) return sendJson(res, 200, dialect.reply(step, request), headers);
  res.writeHead(200, { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const { content, finish } = dialect.stream(step, request);
  for (const [index, frame] of content.entries()) {
    if (index > 0 && step.chunkDelayMs) await sleep(step.chunkDelayMs);
    res.write(frame);
  }
  if (step.stall) return request.disconnected;
  if (step.streamError !== undefined && dialect.streamError) {
    res.end(dialect.streamError(step.streamError));
    return;
  }
  for (const frame of finish) res.write(frame);
  res.end();
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { ...headers, 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Splits text into `count` pieces of nearly equal length (fewer when the text is shorter). */
export function splitText(text: string, count = 1): string[] {
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, count)));
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces;
}

export function argumentsText(toolCall: FakeToolCall): string {
  return typeof toolCall.arguments === 'string' ? toolCall.arguments : JSON.stringify(toolCall.arguments);
}

function createCounter() {
  const waiters: { count: number; resolve(): void }[] = [];
  const counter = {
    value: 0,
    increment() {
      counter.value += 1;
      for (const waiter of waiters.splice(0)) {
        if (counter.value >= waiter.count) waiter.resolve();
        else waiters.push(waiter);
      }
    },
    waitFor(count: number): Promise<void> {
      if (counter.value >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
  };
  return counter;
}
