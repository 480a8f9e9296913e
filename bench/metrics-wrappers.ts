import { validateConfig } from '../src/base/config/index.js';
import type { InboundHandler, InboundMessage } from '../src/base/messages/index.js';
import {
  createTurnStream,
  type TurnRequest,
  type TurnRunner,
  type TurnSession,
  type TurnStream,
} from '../src/engine/agents/index.js';
import { createMetrics, createObserver } from '../src/engine/observability/index.js';
import { figures } from './report.js';

/**
 * The metrics wrappers alone, in-process (no HTTP, whose noise hides a few microseconds): an inbound
 * message (the one timer a message has) and a turn of a runner that answers at once, each plain and observed, in
 * alternating blocks; the medians of the blocks' time per call.
 */

const BLOCKS = 10;
const CALLS = 20_000;

export interface WrapperCost {
  label: string;
  plainMicros: number;
  observedMicros: number;
}

async function timeBlock(calls: number, call: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  for (let index = 0; index < calls; index += 1) await call();
  return ((performance.now() - started) * 1000) / calls;
}

async function compare(label: string, plain: () => Promise<unknown>, observed: () => Promise<unknown>) {
  const times = { plain: [] as number[], observed: [] as number[] };
  await timeBlock(CALLS, plain);
  await timeBlock(CALLS, observed);
  for (let block = 0; block < BLOCKS; block += 1) {
    times.plain.push(await timeBlock(CALLS, plain));
    times.observed.push(await timeBlock(CALLS, observed));
  }
  return { label, plainMicros: figures(times.plain).median, observedMicros: figures(times.observed).median };
}

export async function measureWrappers(): Promise<WrapperCost[]> {
  const configured = validateConfig({});
  if (!configured.ok) throw new Error('the empty config does not validate');
  const observer = createObserver({
    metrics: createMetrics({ processMetrics: false }),
    config: configured.value,
  });
  const handler: InboundHandler = async () => ({
    sessionKey: 'agent:main:webchat:direct:local',
    replies: [],
  });
  const observedHandler = observer.inbound(handler);
  const message = { channel: 'webchat', text: 'hello', senderId: 'webchat:local' } as InboundMessage;
  const runner: TurnRunner = { runTurn: () => createTurnStream(async () => ({ status: 'done' })) };
  const observedRunner = observer.turns(runner);
  const request = { agentId: 'main', depth: 0, route: { channel: 'webchat' } } as unknown as TurnRequest;
  const session = {} as TurnSession;
  const costs = [
    await compare(
      'inbound message (counted and timed)',
      () => handler(message),
      () => observedHandler(message),
    ),
    await compare(
      'turn',
      () => runToEnd(runner.runTurn(request, session)),
      () => runToEnd(observedRunner.runTurn(request, session)),
    ),
  ];
  return costs;
}

/** A turn's events taken (and dropped) to its end: a turn waits for each to be taken. */
async function runToEnd(turn: TurnStream) {
  for await (const _event of turn);
  return turn.result;
}
