import { type ChildProcess, fork } from 'node:child_process';
import { fail, ok } from '../../../base/errors/index.js';
import type { Logger } from '../../../base/logging/index.js';
import { forwardLines } from './output-lines.js';
import {
  type HostMessage,
  isRunnerMessage,
  type RunnerMessage,
  type RunnerRequest,
  toolOutputFromRunner,
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

/** Forks one runner and tracks its calls; it fails them all when the process ends, for whatever reason. */
export function startRunnerChild(options: RunnerChildOptions): RunnerChild {
  return new RunnerProcess(options);
}

interface Pending {
  tool: string;
  finish(result: RunnerCallResult): void;
}

/** One runner process and what waits on it, private to this object. */
class RunnerProcess implements RunnerChild {
  readonly closed: Promise<void>;
  readonly #options: RunnerChildOptions;
  readonly #child: ChildProcess;
  readonly #log: Logger;
  /** Calls sent and not answered, by id. */
  readonly #pending = new Map<number, Pending>();
  /** The next id of a call or a ping (the runner numbers its own requests). */
  #nextId = 1;
  /** Whether the runner answered `init`. */
  #started = false;
  /** Set once, when the process ended or is being killed: why. */
  #endReason: string | undefined;
  /** The outstanding liveness probe, if any. */
  #probing: Promise<void> | undefined;
  /** Ends the outstanding probe: on the pong with its id, or (with `undefined`) when the process ends. */
  #settleProbe: ((answered: number | undefined) => void) | undefined;
  /** Resolves to `undefined` when the runner is ready, else to why it ended first. */
  readonly #startup: Promise<string | undefined>;
  #markStarted: (reason: string | undefined) => void = () => {};
  readonly #startupTimer: NodeJS.Timeout;

  constructor(options: RunnerChildOptions) {
    const { agentId } = options;
    this.#options = options;
    this.#child = fork(options.bootstrap, [], {
      execPath: options.execPath,
      execArgv: options.execArgv,
      // Its own session and process group: a signal to "my group" (kill(0)) never reaches the gateway.
      detached: true,
      env: options.env,
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'json',
    });
    this.#startup = new Promise<string | undefined>((resolve) => {
      this.#markStarted = resolve;
    });
    let markClosed: () => void = () => {};
    // 'close' follows the exit once the pipes are drained; a process that never spawned has neither.
    this.closed = new Promise<void>((resolve) => {
      markClosed = resolve;
    });
    this.#child.once('close', () => markClosed());
    this.#log = options.logger.child({ agentId, runnerPid: this.#child.pid });
    this.#startupTimer = setTimeout(() => {
      this.#end(`the toolpack runner for agent ${agentId} did not start within ${STARTUP_TIMEOUT_MS} ms`);
    }, STARTUP_TIMEOUT_MS);
    this.#watch(markClosed);
    this.#send(options.init);
    this.#log.debug({ execArgv: options.execArgv }, 'toolpack runner started');
  }

  get started(): boolean {
    return this.#started;
  }

  async available(): Promise<string | undefined> {
    const reason = await this.#startup;
    while (this.#probing !== undefined) await this.#probing;
    return reason ?? this.#endReason;
  }

  async stop(reason: string): Promise<void> {
    this.#end(reason);
    await this.closed;
  }

  /** One call: answered by the runner, or failed by its timeout (which starts a probe), the abort or the end. */
  call(call: RunnerCall): Promise<RunnerCallResult> {
    const { tool, signal } = call;
    const { timeoutMs } = this.#options;
    const id = this.#nextId++;
    return new Promise<RunnerCallResult>((resolve) => {
      const timer = setTimeout(() => {
        finish(fail(`Tool ${tool} timed out after ${timeoutMs} ms`));
        this.#probe(tool);
      }, timeoutMs);
      const abort = () => finish(fail(`Tool ${tool} was aborted`));
      const finish = (result: RunnerCallResult): void => {
        if (!this.#pending.delete(id)) return;
        clearTimeout(timer);
        signal?.removeEventListener('abort', abort);
        resolve(result);
      };
      this.#pending.set(id, { tool, finish });
      signal?.addEventListener('abort', abort, { once: true });
      const { toolpackId, input, activationId } = call;
      if (this.#endReason !== undefined) finish(fail(this.#endReason));
      else if (signal?.aborted) abort();
      else if (!this.#send({ type: 'call', id, toolpackId, tool, input: input ?? {}, activationId })) {
        finish(fail(`${tool} failed: its input cannot be sent to the toolpack runner`));
      }
    });
  }

  /** Output to the log, messages to `#receive`, the end of the process to `#end`. */
  #watch(markClosed: () => void): void {
    const child = this.#child;
    const log = this.#log;
    const { agentId } = this.#options;
    forwardLines(child.stdout, (line) => log.info({ stream: 'stdout' }, line));
    forwardLines(child.stderr, (line) => log.warn({ stream: 'stderr' }, line));
    child.on('message', (message: unknown) => {
      if (isRunnerMessage(message)) this.#receive(message);
    });
    child.on('error', (error) => {
      log.warn({ error: error.message }, 'toolpack runner process error');
      if (child.pid === undefined) {
        this.#end(`the toolpack runner for agent ${agentId} could not start: ${error.message}`);
        markClosed();
      }
    });
    child.on('exit', (code, signal) => {
      const how = signal === null ? `code ${code}` : `signal ${signal}`;
      if (this.#endReason === undefined) log.warn({ code, signal }, 'toolpack runner exited');
      this.#end(`the toolpack runner for agent ${agentId} exited (${how})`);
    });
  }

  /** Fails everything still waiting and kills the process (a no-op when it already exited). */
  #end(reason: string): void {
    if (this.#endReason !== undefined) return;
    this.#endReason = reason;
    clearTimeout(this.#startupTimer);
    this.#markStarted(reason);
    this.#settleProbe?.(undefined);
    for (const entry of this.#pending.values()) entry.finish(fail(reason));
    this.#child.kill('SIGKILL');
    this.#options.onEnd();
  }

  /** Whether the message went out: false once the process ended or when it cannot be serialized. */
  #send(message: HostMessage): boolean {
    const child = this.#child;
    if (this.#endReason !== undefined || !child.connected) return false;
    try {
      child.send(message, (error) => {
        if (error) this.#log.debug({ error: error.message }, 'toolpack runner message not sent');
      });
      return true;
    } catch (error) {
      this.#log.warn({ error: (error as Error).message }, 'toolpack runner message cannot be serialized');
      return false;
    }
  }

  /**
   * After a timeout: a runner that still answers a ping keeps running (the hung handler is left behind);
   * one whose event loop is stuck is killed. One probe at a time; calls wait for it (see `available`).
   */
  #probe(tool: string): void {
    if (this.#probing !== undefined || this.#endReason !== undefined) return;
    const id = this.#nextId++;
    this.#probing = new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.#log.warn({ tool }, 'toolpack runner stopped responding after a timeout; killing it');
        this.#end(
          `the toolpack runner for agent ${this.#options.agentId} was killed: it stopped responding after ${tool} timed out`,
        );
      }, PROBE_TIMEOUT_MS);
      this.#settleProbe = (answered) => {
        if (answered !== undefined && answered !== id) return;
        clearTimeout(timer);
        this.#probing = undefined;
        this.#settleProbe = undefined;
        resolve();
      };
    });
    if (!this.#send({ type: 'ping', id })) this.#settleProbe?.(undefined);
  }

  #receive(message: RunnerMessage): void {
    const pending = this.#pending;
    switch (message.type) {
      case 'ready':
        this.#started = true;
        clearTimeout(this.#startupTimer);
        for (const [toolpackId, reason] of Object.entries(message.rejected))
          this.#log.warn({ toolpackId }, reason);
        this.#markStarted(undefined);
        return;
      case 'result':
        pending.get(message.id)?.finish(ok(toolOutputFromRunner(message.result)));
        return;
      case 'error': {
        const entry = pending.get(message.id);
        if (message.stack !== undefined)
          this.#log.warn({ tool: entry?.tool, stack: message.stack }, message.error);
        entry?.finish(fail(message.error));
        return;
      }
      case 'pong':
        this.#settleProbe?.(message.id);
        return;
      default:
        void this.#options.answer(message).then((reply) => this.#send(reply));
    }
  }
}
