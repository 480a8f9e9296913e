import { LRUCache } from 'lru-cache';
import { fail } from '../../errors/index.js';
import type { LoadedToolpack } from '../types.js';
import { acquireRunner, type RunnerHostState, type RunnerToolpack } from './runner-launch.js';
import type { RunnerActivation, RunnerCallResult, RunnerHost, RunnerHostOptions } from './types.js';
import { ABORTED, untilAborted } from './until-aborted.js';

/** Activations whose tokens are kept for the runner's callSupport/recordSignal requests. */
const ACTIVATION_CACHE_SIZE = 64;

function hasRunner(toolpack: LoadedToolpack): toolpack is RunnerToolpack {
  return toolpack.runnerModule !== undefined;
}

/**
 * The runner process of one agent: started on the first call, kept warm, replaced on the next call
 * after it died or was killed as stuck, killed by `stop`.
 *
 * - Confinement (`permissions.ts`): it reads the bootstrap, its toolpack directories, the workspace and
 *   its artifacts directory, writes only the last two, gets a minimal environment, and may not spawn
 *   processes or workers. Its cwd is the workspace. The sandbox (`sandbox.ts`) adds no network and
 *   no way to name, so to signal, any process outside it.
 * - A call that outlives `timeoutMs` fails at once; the runner is then pinged, kept if it answers (the
 *   handler is abandoned, its late answer dropped) and killed if its event loop is stuck. Calls that
 *   arrive meanwhile wait for that verdict, so they never land in a stuck process.
 * - Activation tokens stay in the gateway: the runner names activations by id, and its callSupport and
 *   recordSignal requests are matched to the token of one of the last 64 activations that called it.
 */
export function createRunnerHost(options: RunnerHostOptions): RunnerHost {
  const state: RunnerHostState = {
    options,
    toolpacks: new Map(options.toolpacks.filter(hasRunner).map((toolpack) => [toolpack.id, toolpack])),
    activations: new LRUCache<string, RunnerActivation>({ max: ACTIVATION_CACHE_SIZE }),
    children: new Set(),
    stoppedReason: `the toolpack runner for agent ${options.agentId} was stopped`,
    current: undefined,
    launching: undefined,
    generation: 0,
  };
  return {
    call: (request) => callRunner(state, request),
    async stop() {
      state.generation += 1;
      await state.launching;
      state.current = undefined;
      await Promise.all([...state.children].map((child) => child.stop(state.stoppedReason)));
    },
  };
}

async function callRunner(
  state: RunnerHostState,
  request: Parameters<RunnerHost['call']>[0],
): Promise<RunnerCallResult> {
  const { toolpackId, tool, signal, activation } = request;
  const toolpack = state.toolpacks.get(toolpackId);
  if (toolpack === undefined)
    return fail(`toolpack ${toolpackId} is not available to agent ${state.options.agentId}`);
  if (!toolpack.tools.some((declared) => declared.name === tool)) {
    return fail(`Tool ${tool} is not declared by toolpack ${toolpackId}`);
  }
  state.activations.set(activation.activationId, activation);
  const acquired = await untilAborted(acquireRunner(state), signal);
  if (acquired === ABORTED) return fail(`Tool ${tool} was aborted`);
  if (!acquired.ok) return acquired;
  const { input } = request;
  return acquired.value.call({ toolpackId, tool, input, activationId: activation.activationId, signal });
}
