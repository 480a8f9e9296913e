import { LRUCache } from 'lru-cache';
import { errorText, fail, ok, type Result } from '../../../base/errors/index.js';
import type { LoadedToolpack } from '../types.js';
import { runnerEnvironment, runnerExecArgv } from './permissions.js';
import type { HostMessage, RunnerRequest } from './protocol.js';
import { type RunnerChild, startRunnerChild } from './runner-child.js';
import { prepareLaunch, type RunnerToolpack } from './runner-launch.js';
import type {
  RunnerActivation,
  RunnerCallRequest,
  RunnerCallResult,
  RunnerHost,
  RunnerHostOptions,
} from './types.js';
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
  return new AgentRunnerHost(options);
}

/** One agent's runner host: its processes, the start under way and the activation tokens, private. */
class AgentRunnerHost implements RunnerHost {
  readonly #options: RunnerHostOptions;
  /** Only toolpacks with a runner module: one without declares no tools, so nothing of it runs here. */
  readonly #toolpacks: ReadonlyMap<string, RunnerToolpack>;
  /** Tokens of the recent activations, by id, for the runner's callSupport/recordSignal requests. */
  readonly #activations = new LRUCache<string, RunnerActivation>({ max: ACTIVATION_CACHE_SIZE });
  /** Every process not yet closed, the current one included. */
  readonly #children = new Set<RunnerChild>();
  readonly #stoppedReason: string;
  #current: RunnerChild | undefined;
  #launching: Promise<Result<RunnerChild>> | undefined;
  /** Bumped by `stop`: a call begun before it does not start a new process. */
  #generation = 0;

  constructor(options: RunnerHostOptions) {
    this.#options = options;
    this.#toolpacks = new Map(options.toolpacks.filter(hasRunner).map((toolpack) => [toolpack.id, toolpack]));
    this.#stoppedReason = `the toolpack runner for agent ${options.agentId} was stopped`;
  }

  async call(request: RunnerCallRequest): Promise<RunnerCallResult> {
    const { toolpackId, tool, signal, activation } = request;
    const toolpack = this.#toolpacks.get(toolpackId);
    if (toolpack === undefined)
      return fail(`toolpack ${toolpackId} is not available to agent ${this.#options.agentId}`);
    if (!toolpack.tools.some((declared) => declared.name === tool)) {
      return fail(`Tool ${tool} is not declared by toolpack ${toolpackId}`);
    }
    this.#activations.set(activation.activationId, activation);
    const acquired = await untilAborted(this.#acquire(), signal);
    if (acquired === ABORTED) return fail(`Tool ${tool} was aborted`);
    if (!acquired.ok) return acquired;
    const { input } = request;
    return acquired.value.call({ toolpackId, tool, input, activationId: activation.activationId, signal });
  }

  async stop(): Promise<void> {
    this.#generation += 1;
    await this.#launching;
    this.#current = undefined;
    await Promise.all([...this.#children].map((child) => child.stop(this.#stoppedReason)));
  }

  /** A ready runner, or why there is none. A runner that died after starting is replaced once per call. */
  async #acquire(): Promise<Result<RunnerChild>> {
    const begunIn = this.#generation;
    const { agentId } = this.#options;
    for (let attempt = 0; ; attempt += 1) {
      const launched = this.#current ? ok(this.#current) : await this.#launch();
      if (!launched.ok) {
        if (begunIn !== this.#generation) return fail(this.#stoppedReason);
        return fail(`the toolpack runner for agent ${agentId} could not start: ${launched.error}`);
      }
      const child = launched.value;
      const reason = await child.available();
      if (reason === undefined) return ok(child);
      if (!child.started || attempt > 0 || begunIn !== this.#generation) return fail(reason);
    }
  }

  /** Starts the process, or joins the start under way; fails with why it could not start. */
  #launch(): Promise<Result<RunnerChild>> {
    const launchedIn = this.#generation;
    this.#launching ??= this.#startIn(launchedIn)
      .catch((error: unknown) => fail(errorText(error)))
      .finally(() => {
        this.#launching = undefined;
      });
    return this.#launching;
  }

  async #startIn(launchedIn: number): Promise<Result<RunnerChild>> {
    const options = this.#options;
    const { bootstrap, workspace, read, write, hidden, init } = await prepareLaunch(options, [
      ...this.#toolpacks.values(),
    ]);
    const launch = await options.sandbox.launch({ read, write, hidden });
    if (!launch.ok) return launch;
    const sandbox = launch.value;
    if (launchedIn !== this.#generation) return fail(this.#stoppedReason);
    const created: RunnerChild = startRunnerChild({
      agentId: options.agentId,
      bootstrap,
      execPath: sandbox.execPath,
      execArgv: [...sandbox.prefix, ...runnerExecArgv({ bootstrap, read, write })],
      env: runnerEnvironment(),
      cwd: workspace,
      init,
      timeoutMs: options.timeoutMs,
      logger: options.logger,
      answer: (request) => this.#answer(request),
      onEnd: () => {
        if (this.#current === created) this.#current = undefined;
      },
    });
    this.#children.add(created);
    void created.closed.then(() => this.#children.delete(created));
    this.#current = created;
    return ok(created);
  }

  /** A runner's callSupport/recordSignal, matched to a recent activation's token; a refusal is a failed reply. */
  async #answer(request: RunnerRequest): Promise<Extract<HostMessage, { type: 'reply' }>> {
    const { agentId } = this.#options;
    const refuse = (error: string) => ({ type: 'reply' as const, id: request.id, ok: false as const, error });
    // peek: answering does not make an activation more recent; only a call from it does.
    const activation = this.#activations.peek(request.activationId);
    if (activation === undefined) {
      return refuse(`activation ${request.activationId} is not a recent activation of agent ${agentId}`);
    }
    const { toolpackId } = request;
    if (!this.#toolpacks.has(toolpackId))
      return refuse(`toolpack ${toolpackId} is not available to agent ${agentId}`);
    try {
      if (request.type === 'callSupport') {
        const { tool, input } = request;
        const result = await this.#options.callSupport({ activation, toolpackId, tool, input });
        return { type: 'reply', id: request.id, ok: true, result };
      }
      await this.#options.recordSignal({ activation, toolpackId, signal: request.signal });
      return { type: 'reply', id: request.id, ok: true, result: null };
    } catch (error) {
      return refuse(errorText(error));
    }
  }
}
