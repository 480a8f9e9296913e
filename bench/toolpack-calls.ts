import path from 'node:path';
import { parseConfigText } from '../src/base/config/index.js';
import { createLogger } from '../src/base/logging/index.js';
import {
  createRunnerHost,
  createRunnerSandbox,
  createToolpacks,
  type LoadedToolpack,
  type RunnerCallResult,
  type ToolpackSignals,
} from '../src/extensions/toolpacks/index.js';
import { createRunStore } from '../src/records/sessions/index.js';
import { createStore } from '../src/records/store/index.js';
import { benchToolContext, type GeneratedToolpack } from './toolpack-fixtures.js';

/**
 * Runner round trips, one call at a time: a trivial handler and a handler that awaits
 * `context.callSupport` once, alternating call by call so both see the same machine load. First
 * straight on a runner host (callSupport answered at once), then through the gateway's toolpack
 * runtime (`createToolpacks`: activation checks against a real run store, then the controller).
 */

export interface RoundTrips {
  /** The very first call: starts the runner process, which imports every toolpack's runner module. */
  firstMs: number;
  trivial: number[];
  support: number[];
}

const silent = () => createLogger({ level: 'silent' }).logger;

/**
 * The signal service as the toolpack runtime reaches it. The bench's controllers record no signal and
 * send no message; `agents` is read on every callSupport (the controller's agent record), so it
 * answers like the gateway's: each configured agent, idle.
 */
const signals: ToolpackSignals = {
  record: async () => {},
  send: async () => ({ ok: true }),
  agents: () => [{ id: 'main', displayName: 'main', role: 'agent', status: 'idle' }],
};

async function timed(call: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await call();
  return performance.now() - started;
}

async function alternate(
  trivial: () => Promise<unknown>,
  support: () => Promise<unknown>,
  counts: { calls: number; warmup: number },
): Promise<RoundTrips> {
  const firstMs = await timed(trivial);
  for (let index = 0; index < counts.warmup; index++) {
    await trivial();
    await support();
  }
  const result: RoundTrips = { firstMs, trivial: [], support: [] };
  for (let index = 0; index < counts.calls; index++) {
    result.trivial.push(await timed(trivial));
    result.support.push(await timed(support));
  }
  return result;
}

function expectOk(result: RunnerCallResult): RunnerCallResult {
  if (!result.ok) throw new Error(`runner call failed: ${result.error}`);
  return result;
}

/** `createRunnerHost` alone: a made-up activation, a callSupport that answers like a trivial controller. */
export async function measureRunnerHost(
  toolpacks: readonly LoadedToolpack[],
  dir: string,
  counts: { calls: number; warmup: number },
): Promise<RoundTrips> {
  const host = createRunnerHost({
    agentId: 'main',
    project: 'default',
    toolpacks,
    workspace: path.join(dir, 'host', 'workspace'),
    artifactsDir: path.join(dir, 'host', 'artifacts'),
    timeoutMs: 10_000,
    logger: silent(),
    // What the gateway does: the machine's sandbox when it has one.
    sandbox: createRunnerSandbox({ setting: 'auto', logger: silent() }),
    callSupport: async (request) => ({ output: `Handled ${request.tool}.` }),
    recordSignal: async () => {},
  });
  const activation = { activationId: 'act_bench', token: 'bench-token-not-a-secret' };
  const id = toolpacks[0]?.id ?? 'bench-00';
  const call = (tool: string, input: unknown) => async () =>
    expectOk(await host.call({ toolpackId: id, tool: `${id}.${tool}`, input, activation }));
  try {
    return await alternate(call('echo', { text: 'ping' }), call('support', { note: 'ping' }), counts);
  } finally {
    await host.stop();
  }
}

/** The gateway path: runtime tool `execute` → runner → callSupport → activation checks → controller host. */
export async function measureRuntime(
  toolpacks: readonly LoadedToolpack[],
  entries: readonly GeneratedToolpack[],
  dir: string,
  counts: { calls: number; warmup: number },
): Promise<RoundTrips> {
  const stateDir = path.join(dir, 'runtime');
  const configPath = path.join(dir, 'gateway.jsonc');
  const config = parseConfigText(
    JSON.stringify({ stateDir, agents: { main: { tools: ['*'] } }, tools: { toolpacks: entries } }),
    configPath,
    {},
  );
  const logger = silent();
  const store = await createStore({ url: undefined, stateDir, logger });
  const runs = createRunStore({ store });
  const runtime = await createToolpacks({
    config,
    configPath,
    stateDir,
    loaded: { toolpacks: [...toolpacks], builtins: [], problems: [] },
    store,
    runs,
    signals,
    logger,
  });
  try {
    // One running run, as during an agent turn: every call shares its activation.
    const run = await runs.start({
      sessionKey: 'agent:main:webchat:direct:bench',
      agentId: 'main',
      model: 'bench',
    });
    const context = benchToolContext(run.runId, run.sessionKey);
    const id = toolpacks[0]?.id ?? 'bench-00';
    const tool = (name: string) => {
      const found = runtime.tools
        .flatMap((entry) => entry.tools)
        .find((candidate) => candidate.name === `${id}.${name}`);
      if (!found) throw new Error(`runtime has no tool ${id}.${name}`);
      return found;
    };
    const echo = tool('echo');
    const support = tool('support');
    return await alternate(
      async () => echo.execute({ text: 'ping' }, context),
      async () => support.execute({ note: 'ping' }, context),
      counts,
    );
  } finally {
    await runtime.stop();
    await store.close();
  }
}
