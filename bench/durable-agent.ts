import { createModelProvider } from '../src/agents/providers/index.js';
import { startFakeOpenAIServer } from '../test/fakes/fake-openai-server.js';
import { echoTool, type ModelClock, runTurns, scriptedStep, timed } from './agent-load.js';
import { userNames } from './durable-drive.js';
import { type StoreKind, startBenchGateway } from './durable-gateway.js';
import { percentile } from './load.js';

/**
 * Agent overhead in the durable bench, as bench/agent.ts measures it: web chat turns one at a time
 * through the tool loop and the real OpenAI SDK to a fake server that answers at once, 2 tool
 * rounds; overhead = client latency − time inside `ModelProvider.complete`.
 */

const ROUNDS = 2;

export interface AgentFigures {
  p50: number;
  p99: number;
  failures: number;
  firstFailure: string | undefined;
}

export async function runAgentCell(
  store: StoreKind,
  sizes: { turns: number; warmup: number },
): Promise<AgentFigures> {
  const step = scriptedStep(ROUNDS);
  const fake = await startFakeOpenAIServer({
    defaultStep: (request) => {
      fake.received.length = 0;
      return step(request);
    },
  });
  const clock: ModelClock = { ms: 0, calls: 0 };
  try {
    const bench = await startBenchGateway(store, {
      config: {
        models: { bench: { provider: 'openai', model: 'bench', baseUrl: fake.url, apiKey: 'bench' } },
        agents: { main: { model: 'bench' } },
      },
      tools: [echoTool],
      createModelProvider: async (options) => timed(await createModelProvider(options), clock),
    });
    try {
      const base = {
        url: bench.gateway.url,
        token: bench.gateway.token,
        rounds: ROUNDS,
        clock,
        concurrency: 1,
      };
      const warm = await runTurns({ ...base, turns: sizes.warmup, users: userNames('warmup', sizes.warmup) });
      const result = await runTurns({ ...base, turns: sizes.turns, users: userNames('user', 100) });
      const overhead = result.latencies.map((latency, index) => latency - (result.modelMs[index] ?? 0));
      return {
        p50: percentile(overhead, 50),
        p99: percentile(overhead, 99),
        failures: warm.failures + result.failures,
        firstFailure: warm.firstFailure ?? result.firstFailure,
      };
    } finally {
      await bench.gateway.dispose();
    }
  } finally {
    await fake.close();
  }
}
