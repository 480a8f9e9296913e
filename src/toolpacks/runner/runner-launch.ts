import { mkdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LRUCache } from 'lru-cache';
import { errorText, fail, ok, type Result } from '../../errors/index.js';
import { isInside } from '../module-path.js';
import type { LoadedToolpack } from '../types.js';
import { runnerEnvironment, runnerExecArgv } from './permissions.js';
import type { HostMessage, RunnerRequest } from './protocol.js';
import { type RunnerChild, startRunnerChild } from './runner-child.js';
import type { RunnerActivation, RunnerHostOptions } from './types.js';

/** Plain ESM next to this file in `src` and in `dist` (the build copies it). */
const BOOTSTRAP = fileURLToPath(new URL('./runner-process.mjs', import.meta.url));

export type RunnerToolpack = LoadedToolpack & { runnerModule: string };

/** The state of one agent's runner host; `runner-host.ts` makes it, the functions here change it. */
export interface RunnerHostState {
  readonly options: RunnerHostOptions;
  /** Only toolpacks with a runner module: one without declares no tools, so nothing of it runs here. */
  readonly toolpacks: ReadonlyMap<string, RunnerToolpack>;
  /** Tokens of the recent activations, by id, for the runner's callSupport/recordSignal requests. */
  readonly activations: LRUCache<string, RunnerActivation>;
  /** Every process not yet closed, the current one included. */
  readonly children: Set<RunnerChild>;
  readonly stoppedReason: string;
  current: RunnerChild | undefined;
  launching: Promise<Result<RunnerChild>> | undefined;
  /** Bumped by `stop`: a call begun before it does not start a new process. */
  generation: number;
}

/** A ready runner, or why there is none. A runner that died after starting is replaced once per call. */
export async function acquireRunner(state: RunnerHostState): Promise<Result<RunnerChild>> {
  const begunIn = state.generation;
  const { agentId } = state.options;
  for (let attempt = 0; ; attempt += 1) {
    const launched = state.current ? ok(state.current) : await launchRunner(state);
    if (!launched.ok) {
      if (begunIn !== state.generation) return fail(state.stoppedReason);
      return fail(`the toolpack runner for agent ${agentId} could not start: ${launched.error}`);
    }
    const child = launched.value;
    const reason = await child.available();
    if (reason === undefined) return ok(child);
    if (!child.started || attempt > 0 || begunIn !== state.generation) return fail(reason);
  }
}

/** Starts the process, or joins the start under way; fails with why it could not start. */
function launchRunner(state: RunnerHostState): Promise<Result<RunnerChild>> {
  const launchedIn = state.generation;
  state.launching ??= startIn(state, launchedIn)
    .catch((error: unknown) => fail(errorText(error)))
    .finally(() => {
      state.launching = undefined;
    });
  return state.launching;
}

async function startIn(state: RunnerHostState, launchedIn: number): Promise<Result<RunnerChild>> {
  const { options } = state;
  await Promise.all([
    mkdir(options.workspace, { recursive: true }),
    mkdir(options.artifactsDir, { recursive: true }),
  ]);
  // Grants name real paths: Node checks the resolved path of each access against them.
  const [workspace, artifacts, bootstrap] = await Promise.all([
    realpath(path.resolve(options.workspace)),
    realpath(path.resolve(options.artifactsDir)),
    realpath(BOOTSTRAP),
  ]);
  const toolpacks = [...state.toolpacks.values()];
  const read = [bootstrap, ...toolpacks.map((toolpack) => toolpack.directory), workspace, artifacts];
  const write = [workspace, artifacts];
  const hidden = await hiddenInside([...read, ...write], options.hidden ?? []);
  const launch = await options.sandbox.launch({ read, write, hidden });
  if (!launch.ok) return launch;
  const sandbox = launch.value;
  if (launchedIn !== state.generation) return fail(state.stoppedReason);
  const created: RunnerChild = startRunnerChild({
    agentId: options.agentId,
    bootstrap,
    execPath: sandbox.execPath,
    execArgv: [...sandbox.prefix, ...runnerExecArgv({ bootstrap, read, write })],
    env: runnerEnvironment(),
    cwd: workspace,
    init: {
      type: 'init',
      agentId: options.agentId,
      project: options.project,
      workspace,
      toolpacks: toolpacks.map((toolpack) => ({
        id: toolpack.id,
        runnerModule: toolpack.runnerModule,
        tools: toolpack.tools.map((tool) => tool.name),
      })),
    },
    timeoutMs: options.timeoutMs,
    logger: options.logger,
    answer: (request) => answerRunner(state, request),
    onEnd: () => {
      if (state.current === created) state.current = undefined;
    },
  });
  state.children.add(created);
  void created.closed.then(() => state.children.delete(created));
  state.current = created;
  return ok(created);
}

/** The real paths of the `hidden` folders that exist inside one of the `granted` paths. */
async function hiddenInside(granted: readonly string[], hidden: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const entry of hidden) {
    const real = await realpath(entry).catch(() => undefined);
    if (real !== undefined && granted.some((grant) => isInside(grant, real))) found.push(real);
  }
  return found;
}

/** A runner's callSupport/recordSignal, matched to a recent activation's token; a refusal is a failed reply. */
async function answerRunner(
  state: RunnerHostState,
  request: RunnerRequest,
): Promise<Extract<HostMessage, { type: 'reply' }>> {
  const { agentId } = state.options;
  const refuse = (error: string) => ({ type: 'reply' as const, id: request.id, ok: false as const, error });
  // peek: answering does not make an activation more recent; only a call from it does.
  const activation = state.activations.peek(request.activationId);
  if (activation === undefined) {
    return refuse(`activation ${request.activationId} is not a recent activation of agent ${agentId}`);
  }
  const { toolpackId } = request;
  if (!state.toolpacks.has(toolpackId))
    return refuse(`toolpack ${toolpackId} is not available to agent ${agentId}`);
  try {
    if (request.type === 'callSupport') {
      const { tool, input } = request;
      const result = await state.options.callSupport({ activation, toolpackId, tool, input });
      return { type: 'reply', id: request.id, ok: true, result };
    }
    await state.options.recordSignal({ activation, toolpackId, signal: request.signal });
    return { type: 'reply', id: request.id, ok: true, result: null };
  } catch (error) {
    return refuse(errorText(error));
  }
}
