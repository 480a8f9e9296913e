import { fork } from 'node:child_process';
import { fail } from '../../errors/index.js';
import { forwardLines } from './output-lines.js';
import { isRunnerMessage } from './protocol.js';
import {
  type ChildState,
  endChild,
  probeChild,
  type RunnerChildOptions,
  receiveFromChild,
  sendToChild,
} from './runner-child-state.js';
import type { RunnerCallResult } from './types.js';

export type { RunnerChildOptions } from './runner-child-state.js';

/** How long a runner may take to import its modules and answer `init`. */
const STARTUP_TIMEOUT_MS = 10_000;

export interface RunnerCall {
  toolpackId: string;
  tool: string;
  input: unknown;
  activationId: string;
  signal?: AbortSignal;
}

export interface RunnerChild {
  /** Whether the runner answered `init`: a child that ends before that failed to start. */
  readonly started: boolean;
  /** Resolves when the runner is ready and no liveness probe is out; to the reason when it ended first. */
  available(): Promise<string | undefined>;
  call(call: RunnerCall): Promise<RunnerCallResult>;
  /** Resolves when the process has exited and its pipes are closed. */
  readonly closed: Promise<void>;
  /** Kills the process (failing its calls with `reason`); resolves when it is closed. */
  stop(reason: string): Promise<void>;
}

/** Forks one runner and tracks its calls; it fails them all when the process ends, for whatever reason. */
export function startRunnerChild(options: RunnerChildOptions): RunnerChild {
  const { agentId } = options;
  const child = fork(options.bootstrap, [], {
    execPath: options.execPath,
    execArgv: options.execArgv,
    // Its own session and process group: a signal to "my group" (kill(0)) never reaches the gateway.
    detached: true,
    env: options.env,
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    serialization: 'json',
  });
  let markStarted: (reason: string | undefined) => void = () => {};
  const startup = new Promise<string | undefined>((resolve) => {
    markStarted = resolve;
  });
  let markClosed: () => void = () => {};
  // 'close' follows the exit once the pipes are drained; a process that never spawned has neither.
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  child.once('close', () => markClosed());
  const state: ChildState = {
    options,
    child,
    log: options.logger.child({ agentId, runnerPid: child.pid }),
    pending: new Map(),
    nextId: 1,
    started: false,
    endReason: undefined,
    probing: undefined,
    settleProbe: undefined,
    markStarted,
    startupTimer: setTimeout(() => {
      endChild(
        state,
        `the toolpack runner for agent ${agentId} did not start within ${STARTUP_TIMEOUT_MS} ms`,
      );
    }, STARTUP_TIMEOUT_MS),
  };
  watchChild(state, markClosed);
  sendToChild(state, options.init);
  state.log.debug({ execArgv: options.execArgv }, 'toolpack runner started');

  return {
    get started() {
      return state.started;
    },
    async available() {
      const reason = await startup;
      while (state.probing !== undefined) await state.probing;
      return reason ?? state.endReason;
    },
    call: (call) => callChild(state, call),
    closed,
    async stop(reason) {
      endChild(state, reason);
      await closed;
    },
  };
}

/** Output to the log, messages to `receiveFromChild`, the end of the process to `endChild`. */
function watchChild(state: ChildState, markClosed: () => void): void {
  const { child, log } = state;
  const { agentId } = state.options;
  forwardLines(child.stdout, (line) => log.info({ stream: 'stdout' }, line));
  forwardLines(child.stderr, (line) => log.warn({ stream: 'stderr' }, line));
  child.on('message', (message: unknown) => {
    if (isRunnerMessage(message)) receiveFromChild(state, message);
  });
  child.on('error', (error) => {
    log.warn({ error: error.message }, 'toolpack runner process error');
    if (child.pid === undefined) {
      endChild(state, `the toolpack runner for agent ${agentId} could not start: ${error.message}`);
      markClosed();
    }
  });
  child.on('exit', (code, signal) => {
    const how = signal === null ? `code ${code}` : `signal ${signal}`;
    if (state.endReason === undefined) log.warn({ code, signal }, 'toolpack runner exited');
    endChild(state, `the toolpack runner for agent ${agentId} exited (${how})`);
  });
}

/** One call: answered by the runner, or failed by its timeout (which starts a probe), the abort or the end. */
function callChild(state: ChildState, call: RunnerCall): Promise<RunnerCallResult> {
  const { tool, signal } = call;
  const { timeoutMs } = state.options;
  const id = state.nextId++;
  return new Promise<RunnerCallResult>((resolve) => {
    const timer = setTimeout(() => {
      finish(fail(`Tool ${tool} timed out after ${timeoutMs} ms`));
      probeChild(state, tool);
    }, timeoutMs);
    const abort = () => finish(fail(`Tool ${tool} was aborted`));
    function finish(result: RunnerCallResult): void {
      if (!state.pending.delete(id)) return;
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      resolve(result);
    }
    state.pending.set(id, { tool, finish });
    signal?.addEventListener('abort', abort, { once: true });
    const { toolpackId, input, activationId } = call;
    if (state.endReason !== undefined) finish(fail(state.endReason));
    else if (signal?.aborted) abort();
    else if (!sendToChild(state, { type: 'call', id, toolpackId, tool, input: input ?? {}, activationId })) {
      finish(fail(`${tool} failed: its input cannot be sent to the toolpack runner`));
    }
  });
}
