import { runTurns, startInstantModel } from './agent-load.js';
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
  const model = await startInstantModel(ROUNDS);
  try {
    const bench = await startBenchGateway(store, { config: model.config, ...model.extensions });
    try {
      const base = {
        url: bench.gateway.url,
        token: bench.gateway.token,
        rounds: ROUNDS,
        clock: model.clock,
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
    await model.close();
  }
}
