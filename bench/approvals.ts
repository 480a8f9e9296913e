import { Type } from '@sinclair/typebox';
import type { Tool } from '../src/engine/tools/index.js';
import { startFakeOpenAIServer } from '../test/fakes/fake-openai-server.js';
import { startTestGateway, type TestGateway } from '../test/helpers/gateway.js';
import { describeMachine, printFigures } from './report.js';

/**
 * Approvals, click → tool running, through the whole gateway (router, approvals core, default
 * SQLite store in a temp dir, agent runner, the real OpenAI SDK against a fake model) and the web
 * chat over real HTTP on 127.0.0.1. Each round: a web chat message whose turn calls `bench.mark`
 * (a risky tool: `ask`); the request arrives on the event stream with its buttons; the bench POSTs
 * Approve's value to `/api/webchat/action`, as the page does, and the tool records
 * `performance.now()` when it runs (same process, same clock). Rounds run one after another.
 * Not a test: nothing here asserts on speed.
 */

const ROUNDS = 40;
const WARMUP = 5;
const TIMEOUT_MS = 15_000;
const MODEL_API_KEY = 'sk-bench-approvals-0123456789';

interface Round {
  /** POST of the click sent → the tool executing. */
  toRun: number;
  /** POST of the click sent → its answer (the text that replaces the buttons). */
  toAnswer: number;
}

async function main(): Promise<void> {
  const marks = new Map<number, number>();
  const markTool: Tool = {
    name: 'bench.mark',
    description: 'Records when it runs.',
    parameters: Type.Object({ round: Type.Integer() }),
    risky: true,
    execute: (input) => {
      marks.set((input as { round: number }).round, performance.now());
      return { ok: true };
    },
  };
  const model = await startFakeOpenAIServer();
  const gateway = await startTestGateway({
    config: {
      log: { level: 'warn' },
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: MODEL_API_KEY } },
      agents: { main: { model: 'fake' } },
      approvals: { tools: { 'bench.mark': 'ask' } },
    },
    tools: [markTool],
  });
  let stream: Awaited<ReturnType<typeof openStream>> | undefined;
  try {
    stream = await openStream(gateway, 'local');
    const rounds: Round[] = [];
    for (let round = 0; round < WARMUP + ROUNDS; round += 1) {
      const measured = await runRound(gateway, model, stream.events, marks, round);
      if (round >= WARMUP) rounds.push(measured);
    }
    console.log(`\nApprovals: click → tool running (web chat, ${ROUNDS} rounds after ${WARMUP} warm-up)`);
    console.log(describeMachine());
    printFigures('Latency', [
      { label: 'click POST → tool running', values: rounds.map((round) => round.toRun) },
      { label: 'click POST → its answer', values: rounds.map((round) => round.toAnswer) },
    ]);
  } finally {
    stream?.close();
    await gateway.dispose();
    await model.close();
  }
}

async function runRound(
  gateway: TestGateway,
  model: Awaited<ReturnType<typeof startFakeOpenAIServer>>,
  events: StreamEvent[],
  marks: Map<number, number>,
  round: number,
): Promise<Round> {
  model.push({ toolCalls: [{ name: 'bench.mark', arguments: { round } }] }, { text: `round ${round} done` });
  const seen = events.length;
  const turn = gateway.send(`mark round ${round}`);
  const request = await waitFor(() => events.slice(seen).find((event) => Array.isArray(event.data.actions)));
  const actions = request.data.actions as Array<{ label: string; value: string }>;
  const approve = actions.find((action) => /^approve/i.test(action.label)) ?? actions[0];
  if (!approve) throw new Error(`round ${round}: the request has no buttons`);
  const sent = performance.now();
  const answer = await gateway.request('POST', '/api/webchat/action', {
    action: approve.value,
    reply: request.data.id,
  });
  const answered = performance.now();
  if (answer.status !== 200) throw new Error(`round ${round}: click answered ${answer.status}`);
  const ran = await waitFor(() => marks.get(round));
  const done = await turn;
  if (done.status !== 200) throw new Error(`round ${round}: turn answered ${done.status}`);
  return { toRun: ran - sent, toAnswer: answered - sent };
}

interface StreamEvent {
  type: string;
  data: Record<string, unknown>;
}

/** The web chat event stream of `user`, as the page reads it: its events collect in `events`. */
async function openStream(gateway: TestGateway, user: string) {
  const controller = new AbortController();
  const response = await fetch(`${gateway.url}/api/webchat/events?user=${user}`, {
    headers: { authorization: `Bearer ${gateway.token}` },
    signal: controller.signal,
  });
  if (response.status !== 200 || !response.body) throw new Error(`event stream answered ${response.status}`);
  const events: StreamEvent[] = [];
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  void (async () => {
    let buffer = '';
    for (;;) {
      const chunk = await reader.read().catch(() => undefined);
      if (!chunk || chunk.done) return;
      buffer += chunk.value;
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const type = /^event: (.+)$/m.exec(block)?.[1];
        const data = /^data: (.+)$/m.exec(block)?.[1];
        if (type && data) events.push({ type, data: JSON.parse(data) });
      }
    }
  })();
  return { events, close: () => controller.abort() };
}

/** Polls (every millisecond) until `probe` returns something. */
async function waitFor<T>(probe: () => T | undefined): Promise<T> {
  const deadline = performance.now() + TIMEOUT_MS;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

await main();
