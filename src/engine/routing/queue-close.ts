import pTimeout from 'p-timeout';
import { SwitchboardError } from '../../base/errors/index.js';
import { admit, tellKept } from './queue-pump.js';
import type { PendingMessage, QueuesState } from './queue-types.js';

/** How long turns aborted by the stop may take to end before the stop goes on without them. */
const ABORT_GRACE_MS = 2000;
/** How often the drain looks for turns that started waiting for a human meanwhile. */
const WAITING_CHECK_MS = 100;

/**
 * Drops the session's waiting messages: they are written to the transcript (what was said stays
 * recorded) and nothing answers them; their callers get no replies. Returns how many.
 */
export function clearQueue(state: QueuesState, sessionKey: string): number {
  const queue = state.queues.get(sessionKey);
  if (!queue) return 0;
  const dropped = takeWaiting(queue);
  for (const message of dropped) message.resolve({ sessionKey, replies: [], status: 'killed' });
  const record = async () => {
    await admit(state, queue, dropped);
    for (const message of dropped) if (message.inbox) await state.options.inbox.remove(message.inbox.id);
  };
  void record().catch((error: unknown) =>
    state.options.logger.warn({ err: error, session: sessionKey }, 'dropped messages not recorded'),
  );
  return dropped.length;
}

/**
 * Takes no new messages, lets queued and running turns finish for up to `timeoutMs`, then
 * aborts what still runs and waits for it to settle. User messages not answered by then stay
 * in the inbox for the next start (their chats are told); runtime entries are refused.
 */
export async function closeQueues(
  state: QueuesState,
  timeoutMs: number,
  waitsForHuman: (sessionKey: string) => boolean = () => false,
): Promise<void> {
  const { logger } = state.options;
  state.closed = true;
  if (state.queues.size === 0) return;
  const idle = new Promise<void>((resolve) => state.idleWaiters.add(resolve));
  // A turn waiting for a human's decision cannot end by itself within the drain: it is stopped at
  // once, like the drain stops turns at its end (its message waits for the next start, and the
  // same call then waits on the same request). Looked at again while the drain lasts.
  const interrupt = () => {
    for (const queue of state.queues.values()) {
      if (queue.active && waitsForHuman(queue.sessionKey)) queue.active.controller.abort(state.stopping);
    }
  };
  interrupt();
  const watch = setInterval(interrupt, WAITING_CHECK_MS);
  const drained = await settleWithin(idle, timeoutMs).finally(() => clearInterval(watch));
  if (drained === 'expired') {
    logger.warn({ sessions: state.queues.size }, 'stop timeout reached; aborting running turns');
    await abortAll(state);
    // A runner that ignores its abort signal must not hold the stop forever.
    if ((await settleWithin(idle, ABORT_GRACE_MS)) === 'expired') {
      logger.error(
        { sessions: state.queues.size },
        'turns ignored their abort signal; stopping without them',
      );
    }
  }
  state.idleWaiters.clear();
}

/** Aborts every turn with the stop's reason and answers the waiting messages: kept (user) or refused (runtime). */
async function abortAll(state: QueuesState): Promise<void> {
  for (const queue of state.queues.values()) {
    queue.active?.controller.abort(state.stopping);
    for (const message of takeWaiting(queue)) {
      if (message.inbox) {
        const notice = await tellKept(state, queue);
        message.resolve({ sessionKey: queue.sessionKey, replies: [notice], status: 'interrupted' });
        continue;
      }
      message.reject(
        new SwitchboardError('GATEWAY_STATE', 'the gateway stopped before this message was answered'),
      );
    }
  }
}

function takeWaiting(queue: { pending: PendingMessage[]; steering: PendingMessage[] }): PendingMessage[] {
  return [...queue.steering.splice(0), ...queue.pending.splice(0)];
}

function settleWithin(promise: Promise<void>, milliseconds: number): Promise<'settled' | 'expired'> {
  // `gateway.drainTimeoutMs: 0` (allowed: abort at once); p-timeout refuses 0.
  if (milliseconds <= 0) return Promise.resolve('expired');
  return pTimeout(
    promise.then(() => 'settled' as const),
    { milliseconds, fallback: () => 'expired' as const },
  );
}
