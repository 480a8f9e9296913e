import { type ChildProcess, fork } from 'node:child_process';
import type { Logger } from '../../logging/index.js';
import { forwardLines } from './output-lines.js';
import {
  type HostMessage,
  isRunnerMessage,
  type RunnerMessage,
  type RunnerRequest,
  toToolOutput,
} from './protocol.js';
import type { RunnerCallResult } from './types.js';

/** How long a runner may take to import its modules and answer `init`. */
const STARTUP_TIMEOUT_MS = 10_000;
/** How long a runner whose call timed out has to answer a ping before it is taken for stuck and killed. */
const PROBE_TIMEOUT_MS = 2_000;

export interface RunnerChildOptions {
  agentId: string;
  bootstrap: string;
  /** The program that starts the runner: Node itself, or a sandbox that starts Node (see sandbox.ts). */
  execPath: string;
  execArgv: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  init: Extract<HostMessage, { type: 'init' }>;
  timeoutMs: number;
  logger: Logger;
  /** Answers a runner's callSupport/recordSignal; the returned message is sent back as is. */
  answer(request: RunnerRequest): Promise<Extract<HostMessage, { type: 'reply' }>>;
  /** Called once when the process is gone or being killed, so the host starts a new one next time. */
  onEnd(): void;
}

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

interface Pending {
  tool: string;
  finish(result: RunnerCallResult): void;
}

/** Forks one runner and tracks its calls; it fails them all when the process ends, for whatever reason. */
export function startRunnerChild(options: RunnerChildOptions): RunnerChild {
  const { agentId, logger } = options;
  const child: ChildProcess = fork(options.bootstrap, [], {
    execPath: options.execPath,
    execArgv: options.execArgv,
    // Its own session and process group: a signal to "my group" (kill(0)) never reaches the gateway.
    detached: true,
    env: options.env,
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    serialization: 'json',
  });
  const log = logger.child({ agentId, runnerPid: child.pid });
  const pending = new Map<number, Pending>();
  let probing: Promise<void> | undefined;
  /** Ends the outstanding probe: on the pong with its id, or (with `undefined`) when the process ends. */
  let settleProbe: ((answered: number | undefined) => void) | undefined;
  let nextId = 1;
  let started = false;
  let endReason: string | undefined;
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
  const startupTimer = setTimeout(() => {
    end(`the toolpack runner for agent ${agentId} did not start within ${STARTUP_TIMEOUT_MS} ms`);
  }, STARTUP_TIMEOUT_MS);

  forwardLines(child.stdout, (line) => log.info({ stream: 'stdout' }, line));
  forwardLines(child.stderr, (line) => log.warn({ stream: 'stderr' }, line));

  /** Fails everything still waiting and kills the process (a no-op when it already exited). */
  function end(reason: string): void {
    if (endReason !== undefined) return;
    endReason = reason;
    clearTimeout(startupTimer);
    markStarted(reason);
    settleProbe?.(undefined);
    for (const entry of pending.values()) entry.finish({ ok: false, error: reason });
    child.kill('SIGKILL');
    options.onEnd();
  }

  function send(message: HostMessage): boolean {
    if (endReason !== undefined || !child.connected) return false;
    try {
      child.send(message, (error) => {
        if (error) log.debug({ error: error.message }, 'toolpack runner message not sent');
      });
      return true;
    } catch (error) {
      log.warn({ error: (error as Error).message }, 'toolpack runner message cannot be serialized');
      return false;
    }
  }

  /**
   * After a timeout: a runner that still answers a ping keeps running (the hung handler is left behind);
   * one whose event loop is stuck is killed. One probe at a time; calls wait for it (see `available`).
   */
  function probe(tool: string): void {
    if (probing !== undefined || endReason !== undefined) return;
    const id = nextId++;
    probing = new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        log.warn({ tool }, 'toolpack runner stopped responding after a timeout; killing it');
        end(
          `the toolpack runner for agent ${agentId} was killed: it stopped responding after ${tool} timed out`,
        );
      }, PROBE_TIMEOUT_MS);
      settleProbe = (answered) => {
        if (answered !== undefined && answered !== id) return;
        clearTimeout(timer);
        probing = undefined;
        settleProbe = undefined;
        resolve();
      };
    });
    if (!send({ type: 'ping', id })) settleProbe?.(undefined);
  }

  function receive(message: RunnerMessage): void {
    switch (message.type) {
      case 'ready':
        started = true;
        clearTimeout(startupTimer);
        for (const [toolpackId, reason] of Object.entries(message.rejected)) log.warn({ toolpackId }, reason);
        markStarted(undefined);
        return;
      case 'result':
        pending.get(message.id)?.finish({ ok: true, result: toToolOutput(message.result) });
        return;
      case 'error': {
        const entry = pending.get(message.id);
        if (message.stack !== undefined) log.warn({ tool: entry?.tool, stack: message.stack }, message.error);
        entry?.finish({ ok: false, error: message.error });
        return;
      }
      case 'pong':
        settleProbe?.(message.id);
        return;
      default:
        void options.answer(message).then(send);
    }
  }

  child.on('message', (message: unknown) => {
    if (isRunnerMessage(message)) receive(message);
  });
  child.on('error', (error) => {
    log.warn({ error: error.message }, 'toolpack runner process error');
    if (child.pid === undefined) {
      end(`the toolpack runner for agent ${agentId} could not start: ${error.message}`);
      markClosed();
    }
  });
  child.on('exit', (code, signal) => {
    const how = signal === null ? `code ${code}` : `signal ${signal}`;
    if (endReason === undefined) log.warn({ code, signal }, 'toolpack runner exited');
    end(`the toolpack runner for agent ${agentId} exited (${how})`);
  });
  send(options.init);
  log.debug({ execArgv: options.execArgv }, 'toolpack runner started');

  return {
    get started() {
      return started;
    },
    async available() {
      const reason = await startup;
      while (probing !== undefined) await probing;
      return reason ?? endReason;
    },
    call(call) {
      const { tool, signal } = call;
      const id = nextId++;
      return new Promise<RunnerCallResult>((resolve) => {
        const timer = setTimeout(() => {
          finish({ ok: false, error: `Tool ${tool} timed out after ${options.timeoutMs} ms` });
          probe(tool);
        }, options.timeoutMs);
        const abort = () => finish({ ok: false, error: `Tool ${tool} was aborted` });
        function finish(result: RunnerCallResult): void {
          if (!pending.delete(id)) return;
          clearTimeout(timer);
          signal?.removeEventListener('abort', abort);
          resolve(result);
        }
        pending.set(id, { tool, finish });
        signal?.addEventListener('abort', abort, { once: true });
        const { toolpackId, input, activationId } = call;
        if (endReason !== undefined) finish({ ok: false, error: endReason });
        else if (signal?.aborted) abort();
        else if (!send({ type: 'call', id, toolpackId, tool, input: input ?? {}, activationId })) {
          finish({ ok: false, error: `${tool} failed: its input cannot be sent to the toolpack runner` });
        }
      });
    },
    closed,
    async stop(reason) {
      end(reason);
      await closed;
    },
  };
}
