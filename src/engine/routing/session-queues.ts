import { SwitchboardError } from '../../base/errors/index.js';
import type { DispatchResult } from '../../base/messages/index.js';
import { TurnAbort } from '../agents/index.js';
import { clearQueue, closeQueues } from './queue-close.js';
import { pump, tellKept } from './queue-pump.js';
import type {
  PendingMessage,
  QueueStatus,
  QueuesState,
  QueueTarget,
  SessionQueuesOptions,
} from './queue-types.js';

export { KEPT_FOR_RESTART } from './queue-pump.js';
export type {
  PendingMessage,
  QueueMode,
  QueueStatus,
  QueueTarget,
  SessionQueuesOptions,
} from './queue-types.js';

/**
 * One queue per session: a session runs one turn at a time. Messages that arrive during a turn
 * wait (`collect`: all of them form the next turn; `followup`: one turn each), are shown to the
 * running turn before its next model call (`steer`), or abort it and start the next turn
 * (`interrupt`; only a user's message interrupts, runtime entries wait). A non-owner's message
 * never joins or interrupts an owner turn, and a collect batch never mixes owners' messages with
 * others': it would run with the owner's tools. A message reaches the transcript when its turn
 * takes it, so the model reads it after the reply of the turn it arrived during. Turns of all
 * sessions share the global limiter.
 */
export function createSessionQueues(options: SessionQueuesOptions) {
  const state: QueuesState = {
    options,
    queues: new Map(),
    idleWaiters: new Set(),
    stopping: new TurnAbort('interrupted', 'the gateway is stopping'),
    told: new Map(),
    closed: false,
  };
  return {
    /** Queues a message; resolves with the replies of the turn that answers it. */
    enqueue: (target: QueueTarget, message: Omit<PendingMessage, 'resolve' | 'reject'>) =>
      enqueue(state, target, message),
    status: (sessionKey: string) => status(state, sessionKey),
    /** Whether any session of the agent has a turn queued or running. */
    agentBusy(agentId: string): boolean {
      for (const queue of state.queues.values()) if (queue.agentId === agentId && queue.active) return true;
      return false;
    },
    tellKept: (target: Pick<QueueTarget, 'sessionKey' | 'route'>) => tellKept(state, target),
    /** Messages waiting behind the current turn. */
    depth(sessionKey: string): number {
      const queue = state.queues.get(sessionKey);
      return queue ? queue.pending.length + queue.steering.length : 0;
    },
    /** Messages waiting behind the current turns of every session (the metrics' queue depth). */
    totalDepth(): number {
      let waiting = 0;
      for (const queue of state.queues.values()) waiting += queue.pending.length + queue.steering.length;
      return waiting;
    },
    /** Aborts the session's current turn; false when none is running. */
    stop(sessionKey: string, reason = 'stopped by /stop'): boolean {
      const active = state.queues.get(sessionKey)?.active;
      if (!active || active.controller.signal.aborted) return false;
      active.controller.abort(new TurnAbort('killed', reason));
      return true;
    },
    clear: (sessionKey: string) => clearQueue(state, sessionKey),
    close: (timeoutMs: number, waitsForHuman?: (sessionKey: string) => boolean) =>
      closeQueues(state, timeoutMs, waitsForHuman),
  };
}

export type SessionQueues = ReturnType<typeof createSessionQueues>;

function enqueue(
  state: QueuesState,
  target: QueueTarget,
  message: Omit<PendingMessage, 'resolve' | 'reject'>,
): Promise<DispatchResult> {
  if (state.closed) return Promise.reject(new SwitchboardError('GATEWAY_STATE', 'the gateway is stopping'));
  let queue = state.queues.get(target.sessionKey);
  if (!queue) {
    queue = { ...target, pending: [], steering: [] };
    state.queues.set(target.sessionKey, queue);
  }
  const current = queue;
  const { queueMode } = state.options;
  const active = current.active;
  // A non-owner's message never reaches into an owner turn (it would run with the owner's tools).
  const mayJoin = active?.started === true && (message.isOwner || !active.isOwner);
  const steer = (queueMode === 'steer' || message.mode === 'steer') && mayJoin;
  const result = new Promise<DispatchResult>((resolve, reject) =>
    (steer ? current.steering : current.pending).push({ ...message, resolve, reject }),
  );
  const interrupt = queueMode === 'interrupt' && message.origin === 'user' && mayJoin;
  if (interrupt && !active?.controller.signal.aborted) {
    active?.controller.abort(new TurnAbort('interrupted', 'a newer message interrupted the run'));
  }
  pump(state, current);
  return result;
}

function status(state: QueuesState, sessionKey: string): QueueStatus {
  const active = state.queues.get(sessionKey)?.active;
  if (!active) return 'idle';
  return active.started ? 'running' : 'queued';
}
