import { createLogger } from '../src/base/logging/index.js';
import {
  createSubagentRegistry,
  runSubagentsAction,
  type SubagentRun,
  type SubagentsService,
} from '../src/engine/subagents/index.js';
import { createStore } from '../src/records/store/index.js';
import type { FakeRequest, FakeStep } from '../test/fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../test/fakes/fake-openai-server.js';
import { startTestGateway } from '../test/helpers/gateway.js';
import { makeTempDir, removeDir } from '../test/helpers/machine.js';
import { describeLoad, describeMachine, figures, fixed, printFigures } from './report.js';
import { epochNow } from './restart-stats.js';

/**
 * Sub-agents: spawn → announce with an instant fake model (the parent's model calls
 * sessions_spawn, the child answers at once, the announcement starts a parent turn), and the
 * `subagents list` action over a registry that holds 1,000 recent runs of one session.
 */

const SPAWNS = 100;
const WARMUP = 10;
const LIST_RUNS = 1000;
const LIST_REPEATS = 100;

/** Parent: spawn on the user's message, a short text on the announcement; child: answer at once. */
function modelStep(spawnedAt: Map<string, number>, announcedAt: Map<string, number>) {
  return (request: FakeRequest): FakeStep => {
    const messages: { role?: string; content?: unknown }[] = request.body?.messages ?? [];
    const system = String(messages[0]?.content ?? '');
    if (system.includes(':subagent:')) return { text: 'child done' };
    const last = messages.at(-1);
    const text = String(last?.content ?? '');
    const label = /bench spawn (\d+)/.exec(text)?.[1];
    if (last?.role === 'user' && label !== undefined && !text.includes('Sub-agent announcement')) {
      spawnedAt.set(label, epochNow());
      return {
        toolCalls: [{ id: `spawn_${label}`, name: 'sessions_spawn', arguments: { task: 'reply', label } }],
      };
    }
    const announced = /"label":"(\d+)"/.exec(text)?.[1];
    if (announced !== undefined) announcedAt.set(announced, epochNow());
    return { text: 'noted' };
  };
}

async function measureSpawnToAnnounce(): Promise<number[]> {
  const spawnedAt = new Map<string, number>();
  const announcedAt = new Map<string, number>();
  const fake = await startFakeOpenAIServer({ defaultStep: modelStep(spawnedAt, announcedAt) });
  const gateway = await startTestGateway({
    config: {
      log: { level: 'warn' },
      models: {
        bench: { provider: 'openai', model: 'bench', baseUrl: fake.url, apiKey: 'sk-bench-not-a-secret' },
      },
      agents: { main: { model: 'bench' } },
      subagents: { maxChildrenPerSession: 100 },
    },
  });
  const durations: number[] = [];
  try {
    for (let index = 0; index < WARMUP + SPAWNS; index++) {
      const label = String(index);
      await gateway.send(`bench spawn ${label}`, `user-${index % 10}`);
      const deadline = Date.now() + 10_000;
      while (!announcedAt.has(label) && Date.now() < deadline)
        await new Promise((resolve) => setImmediate(resolve));
      fake.received.length = 0;
      const start = spawnedAt.get(label);
      const end = announcedAt.get(label);
      if (index >= WARMUP)
        durations.push(start !== undefined && end !== undefined ? end - start : Number.NaN);
    }
  } finally {
    await gateway.dispose();
    await fake.close();
  }
  return durations;
}

async function measureList(): Promise<{ warm: number[]; cold: number[]; listed: number }> {
  const dir = await makeTempDir('switchboard-bench-subagents-');
  const logger = createLogger({ level: 'silent' }).logger;
  const store = await createStore({ url: undefined, stateDir: dir, logger });
  const requester = 'agent:main:webchat:direct:bench';
  const now = Date.now();
  const registry = createSubagentRegistry({ store });
  for (let index = 0; index < LIST_RUNS; index++) {
    const run: SubagentRun = {
      subagentRunId: crypto.randomUUID(),
      childSessionKey: `agent:main:subagent:${crypto.randomUUID()}`,
      requesterSessionKey: requester,
      label: `task-${index}`,
      task: 'bench',
      agentId: 'main',
      model: 'bench',
      depth: 1,
      status: 'done',
      startedAt: now - 60_000 + index,
      endedAt: now - 30_000 + index,
      runtimeMs: 30_000,
      outcome: { status: 'success', result: 'ok', rounds: 1, toolCalls: 0 },
    };
    await registry.add(run);
  }
  const list = async (service: SubagentsService) => {
    const started = performance.now();
    const result = await runSubagentsAction(
      service,
      { sessionKey: requester, agentId: 'main' },
      {},
      Date.now(),
    );
    return { ms: performance.now() - started, listed: 'total' in result ? result.total : 0 };
  };
  const service = (source: typeof registry) =>
    ({ runs: (key: string) => source.byRequester(key) }) as unknown as SubagentsService;
  const warm: number[] = [];
  const cold: number[] = [];
  let listed = 0;
  try {
    for (let repeat = 0; repeat < LIST_REPEATS; repeat++) {
      const hot = await list(service(registry));
      warm.push(hot.ms);
      listed = hot.listed;
      // A fresh registry: the child index is read from the store again, as after a restart.
      cold.push((await list(service(createSubagentRegistry({ store })))).ms);
    }
  } finally {
    await store.close();
    await removeDir(dir);
  }
  return { warm, cold, listed };
}

async function main(): Promise<void> {
  const began = performance.now();
  console.log('Switchboard sub-agent bench: spawn → announce, and `subagents list` over 1,000 recent runs.');
  console.log(`${describeMachine()}; SQLite store; log level warn.`);
  console.log(`\n[1/2] ${SPAWNS} spawns after ${WARMUP} warm-up (fake OpenAI model answering at once)…`);
  const spawns = await measureSpawnToAnnounce();
  console.log(`[2/2] list with ${LIST_RUNS} recent runs, ${LIST_REPEATS} times…`);
  const lists = await measureList();
  printFigures(
    'Spawn → announce: from the fake model answering with sessions_spawn to the parent model receiving the announcement (includes the child turn: one instant model call through the SDK).',
    [{ label: 'spawn → announcement at the parent model', values: spawns }],
  );
  printFigures(`subagents list over ${LIST_RUNS} recent runs (listed ${lists.listed}):`, [
    { label: 'registry warm (index cached)', values: lists.warm },
    { label: 'registry cold (index read from SQLite)', values: lists.cold },
  ]);
  const failed = spawns.filter((value) => Number.isNaN(value)).length;
  console.log(
    `\nSummary (medians): spawn → announce ${fixed(figures(spawns).median)} ms (${failed} not announced within 10 s); ` +
      `list ${fixed(figures(lists.warm).median)} ms warm, ${fixed(figures(lists.cold).median)} ms cold. ` +
      `Load average at the end: ${describeLoad()}; ran ${fixed((performance.now() - began) / 1000)} s.`,
  );
}

await main();
