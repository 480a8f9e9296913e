import type { ChildProcess } from 'node:child_process';
import { fail, ok } from '../../errors/index.js';
import type { Logger } from '../../logging/index.js';
import {
  type HostMessage,
  type RunnerMessage,
  type RunnerRequest,
  toolOutputFromRunner,
} from './protocol.js';
import type { RunnerCallResult } from './types.js';

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

interface Pending {
  tool: string;
  finish(result: RunnerCallResult): void;
}

/** One runner process and what waits on it. Only the functions of this file and `runner-child.ts` change it. */
export interface ChildState {
  readonly options: RunnerChildOptions;
  readonly child: ChildProcess;
  readonly log: Logger;
  /** Calls sent and not answered, by id. */
  readonly pending: Map<number, Pending>;
  /** The next id of a call or a ping (the runner numbers its own requests). */
  nextId: number;
  /** Whether the runner answered `init`. */
  started: boolean;
  /** Set once, when the process ended or is being killed: why. */
  endReason: string | undefined;
  /** The outstanding liveness probe, if any. */
  probing: Promise<void> | undefined;
  /** Ends the outstanding probe: on the pong with its id, or (with `undefined`) when the process ends. */
  settleProbe: ((answered: number | undefined) => void) | undefined;
  /** Resolves the start-up wait: `undefined` when ready, else why the runner ended first. */
  markStarted(reason: string | undefined): void;
  readonly startupTimer: NodeJS.Timeout;
}

/** Fails everything still waiting and kills the process (a no-op when it already exited). */
export function endChild(state: ChildState, reason: string): void {
  if (state.endReason !== undefined) return;
  state.endReason = reason;
  clearTimeout(state.startupTimer);
  state.markStarted(reason);
  state.settleProbe?.(undefined);
  for (const entry of state.pending.values()) entry.finish(fail(reason));
  state.child.kill('SIGKILL');
  state.options.onEnd();
}

/** Whether the message went out: false once the process ended or when it cannot be serialized. */
export function sendToChild(state: ChildState, message: HostMessage): boolean {
  const { child, log } = state;
  if (state.endReason !== undefined || !child.connected) return false;
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
export function probeChild(state: ChildState, tool: string): void {
  if (state.probing !== undefined || state.endReason !== undefined) return;
  const id = state.nextId++;
  state.probing = new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      state.log.warn({ tool }, 'toolpack runner stopped responding after a timeout; killing it');
      endChild(
        state,
        `the toolpack runner for agent ${state.options.agentId} was killed: it stopped responding after ${tool} timed out`,
      );
    }, PROBE_TIMEOUT_MS);
    state.settleProbe = (answered) => {
      if (answered !== undefined && answered !== id) return;
      clearTimeout(timer);
      state.probing = undefined;
      state.settleProbe = undefined;
      resolve();
    };
  });
  if (!sendToChild(state, { type: 'ping', id })) state.settleProbe?.(undefined);
}

export function receiveFromChild(state: ChildState, message: RunnerMessage): void {
  const { log, pending } = state;
  switch (message.type) {
    case 'ready':
      state.started = true;
      clearTimeout(state.startupTimer);
      for (const [toolpackId, reason] of Object.entries(message.rejected)) log.warn({ toolpackId }, reason);
      state.markStarted(undefined);
      return;
    case 'result':
      pending.get(message.id)?.finish(ok(toolOutputFromRunner(message.result)));
      return;
    case 'error': {
      const entry = pending.get(message.id);
      if (message.stack !== undefined) log.warn({ tool: entry?.tool, stack: message.stack }, message.error);
      entry?.finish(fail(message.error));
      return;
    }
    case 'pong':
      state.settleProbe?.(message.id);
      return;
    default:
      void state.options.answer(message).then((reply) => sendToChild(state, reply));
  }
}
