import { mkdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorText } from '../../errors/index.js';
import type { LoadedToolpack } from '../types.js';
import { runnerEnvironment, runnerExecArgv } from './permissions.js';
import type { HostMessage, RunnerRequest } from './protocol.js';
import { type RunnerChild, startRunnerChild } from './runner-child.js';
import type { RunnerActivation, RunnerCallResult, RunnerHost, RunnerHostOptions } from './types.js';
import { ABORTED, untilAborted } from './until-aborted.js';

/** Plain ESM next to this file in `src` and in `dist` (the build copies it). */
const BOOTSTRAP = fileURLToPath(new URL('./runner-process.mjs', import.meta.url));
/** Activations whose tokens are kept for the runner's callSupport/recordSignal requests, most recent last. */
const ACTIVATION_CACHE_SIZE = 64;

type Reply = Extract<HostMessage, { type: 'reply' }>;
type RunnerToolpack = LoadedToolpack & { runnerModule: string };

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
  const { agentId } = options;
  // A toolpack without a runner module declares no tools: nothing of it runs here.
  const toolpacks = new Map<string, RunnerToolpack>();
  for (const toolpack of options.toolpacks) if (hasRunner(toolpack)) toolpacks.set(toolpack.id, toolpack);
  const activations = new Map<string, RunnerActivation>();
  const children = new Set<RunnerChild>();
  const stoppedReason = `the toolpack runner for agent ${agentId} was stopped`;
  let current: RunnerChild | undefined;
  let launching: Promise<RunnerChild> | undefined;
  /** Bumped by `stop`: a call begun before it does not start a new process. */
  let generation = 0;

  function remember(activation: RunnerActivation): void {
    activations.delete(activation.activationId);
    activations.set(activation.activationId, activation);
    const oldest = activations.keys().next().value;
    if (activations.size > ACTIVATION_CACHE_SIZE && oldest !== undefined) activations.delete(oldest);
  }

  async function answer(request: RunnerRequest): Promise<Reply> {
    try {
      const activation = activations.get(request.activationId);
      if (activation === undefined) {
        throw new Error(`activation ${request.activationId} is not a recent activation of agent ${agentId}`);
      }
      const { toolpackId } = request;
      if (!toolpacks.has(toolpackId)) {
        throw new Error(`toolpack ${toolpackId} is not available to agent ${agentId}`);
      }
      if (request.type === 'callSupport') {
        const result = await options.callSupport({
          activation,
          toolpackId,
          tool: request.tool,
          input: request.input,
        });
        return { type: 'reply', id: request.id, ok: true, result };
      }
      await options.recordSignal({ activation, toolpackId, signal: request.signal });
      return { type: 'reply', id: request.id, ok: true, result: null };
    } catch (error) {
      return { type: 'reply', id: request.id, ok: false, error: errorText(error) };
    }
  }

  function launch(): Promise<RunnerChild> {
    const launchedIn = generation;
    launching ??= (async () => {
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
      const directories = [...toolpacks.values()].map((toolpack) => toolpack.directory);
      const read = [bootstrap, ...directories, workspace, artifacts];
      const write = [workspace, artifacts];
      const sandbox = await options.sandbox.launch({ read, write });
      if ('refused' in sandbox) throw new Error(sandbox.refused);
      if (launchedIn !== generation) throw new Error(stoppedReason);
      const created: RunnerChild = startRunnerChild({
        agentId,
        bootstrap,
        execPath: sandbox.execPath,
        execArgv: [...sandbox.prefix, ...runnerExecArgv({ bootstrap, read, write })],
        env: runnerEnvironment(),
        cwd: workspace,
        init: {
          type: 'init',
          agentId,
          project: options.project,
          workspace,
          toolpacks: [...toolpacks.values()].map((toolpack) => ({
            id: toolpack.id,
            runnerModule: toolpack.runnerModule,
            tools: toolpack.tools.map((tool) => tool.name),
          })),
        },
        timeoutMs: options.timeoutMs,
        logger: options.logger,
        answer,
        onEnd: () => {
          if (current === created) current = undefined;
        },
      });
      children.add(created);
      void created.closed.then(() => children.delete(created));
      current = created;
      return created;
    })().finally(() => {
      launching = undefined;
    });
    return launching;
  }

  /** A ready runner, or why there is none. A runner that died after starting is replaced once per call. */
  async function acquire(): Promise<RunnerChild | string> {
    const begunIn = generation;
    for (let attempt = 0; ; attempt += 1) {
      let child: RunnerChild;
      try {
        child = current ?? (await launch());
      } catch (error) {
        if (begunIn !== generation) return stoppedReason;
        return `the toolpack runner for agent ${agentId} could not start: ${errorText(error)}`;
      }
      const reason = await child.available();
      if (reason === undefined) return child;
      if (!child.started || attempt > 0 || begunIn !== generation) return reason;
    }
  }

  return {
    async call(request): Promise<RunnerCallResult> {
      const { toolpackId, tool, signal } = request;
      const toolpack = toolpacks.get(toolpackId);
      if (toolpack === undefined) {
        return { ok: false, error: `toolpack ${toolpackId} is not available to agent ${agentId}` };
      }
      if (!toolpack.tools.some((declared) => declared.name === tool)) {
        return { ok: false, error: `Tool ${tool} is not declared by toolpack ${toolpackId}` };
      }
      remember(request.activation);
      const acquired = await untilAborted(acquire(), signal);
      if (acquired === ABORTED) return { ok: false, error: `Tool ${tool} was aborted` };
      if (typeof acquired === 'string') return { ok: false, error: acquired };
      const { input, activation } = request;
      return acquired.call({ toolpackId, tool, input, activationId: activation.activationId, signal });
    },
    async stop() {
      generation += 1;
      await launching?.catch(() => undefined);
      current = undefined;
      await Promise.all([...children].map((child) => child.stop(stoppedReason)));
    },
  };
}
