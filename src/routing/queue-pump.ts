import type { OutboundMessage } from '../messages/index.js';
import type { TranscriptEntry } from '../sessions/index.js';
import { runQueueTurn, scrubEntry } from './queue-turn.js';
import type { ActiveTurn, PendingMessage, QueuesState, QueueTarget, SessionQueue } from './queue-types.js';

/** Told in a chat whose message waits for the next start. */
export const KEPT_FOR_RESTART =
  'The gateway is restarting: this message is kept and will be answered when it is back.';

/**
 * Starts the queue's next turn when none is active and messages wait; a queue with neither is
 * forgotten (and the drain woken when it was the last). The turn waits for the global limiter.
 */
export function pump(state: QueuesState, queue: SessionQueue): void {
  if (queue.active || queue.pending.length === 0) {
    if (!queue.active) {
      state.queues.delete(queue.sessionKey);
      if (state.queues.size === 0) for (const wake of state.idleWaiters) wake();
    }
    return;
  }
  const batch = nextBatch(state, queue.pending);
  const active: ActiveTurn = {
    controller: new AbortController(),
    started: false,
    isOwner: batch.every((message) => message.isOwner),
  };
  queue.active = active;
  void state.options.limiter
    .add(async () => {
      active.started = true;
      await runTurn(state, queue, batch, active);
    })
    .catch((error: unknown) => {
      for (const message of batch) message.reject(error);
    })
    .finally(() => {
      queue.active = undefined;
      // Steered messages the turn did not take before it ended get a turn of their own.
      queue.pending.unshift(...queue.steering.splice(0));
      pump(state, queue);
    });
}

/** The next turn's messages: one (`followup`), or the waiting ones from the same side (owners or not). */
function nextBatch(state: QueuesState, pending: PendingMessage[]): PendingMessage[] {
  if (state.options.queueMode === 'followup') return pending.splice(0, 1);
  const owner = pending[0]?.isOwner;
  const count = pending.findIndex((message) => message.isOwner !== owner);
  return pending.splice(0, count < 0 ? pending.length : count);
}

async function runTurn(
  state: QueuesState,
  queue: SessionQueue,
  batch: PendingMessage[],
  active: ActiveTurn,
): Promise<void> {
  const signal = active.controller.signal;
  const { result, replies } = await runQueueTurn({
    options: state.options,
    target: queue,
    batch,
    isOwner: active.isOwner,
    signal,
    stopped: signal.reason === state.stopping,
    admit: (messages) => admit(state, queue, messages),
    takeSteering: () => queue.steering.splice(0),
  });
  const kept = await settle(state, queue, batch, signal);
  if (kept) replies.push(kept);
  const outcome = { status: result.status, ...(result.runId === undefined ? {} : { runId: result.runId }) };
  for (const message of batch) message.resolve({ sessionKey: queue.sessionKey, replies, ...outcome });
}

/** Writes the messages a turn takes to the transcript, in order, and records that on their inbox items. */
export async function admit(
  state: QueuesState,
  target: QueueTarget,
  messages: PendingMessage[],
): Promise<TranscriptEntry[]> {
  const { sessions, inbox, scrub } = state.options;
  const entries: TranscriptEntry[] = [];
  for (const message of messages) {
    message.stored ??= await sessions.append(target.sessionKey, scrubEntry(message.entry, scrub));
    if (message.inbox) {
      message.inbox = { ...message.inbox, stored: message.stored, attempts: message.inbox.attempts + 1 };
      await inbox.update(message.inbox);
    }
    entries.push(message.stored);
  }
  return entries;
}

/**
 * After a turn: its user messages are answered (their inbox items go) unless the stop cut the
 * turn short; then they wait for the next start, and the chat is told so once.
 */
async function settle(
  state: QueuesState,
  target: QueueTarget,
  batch: PendingMessage[],
  signal: AbortSignal,
): Promise<OutboundMessage | undefined> {
  const kept = signal.aborted && signal.reason === state.stopping;
  const users = batch.filter((message) => message.inbox !== undefined);
  if (kept && users.length > 0) return tellKept(state, target);
  for (const message of users) if (message.inbox) await state.options.inbox.remove(message.inbox.id);
  return undefined;
}

/** Tells a chat, once per session, that its messages wait for the next start; returns the notice. */
export async function tellKept(
  state: QueuesState,
  target: Pick<QueueTarget, 'sessionKey' | 'route'>,
): Promise<OutboundMessage> {
  const known = state.told.get(target.sessionKey);
  if (known) return known;
  const notice = { id: crypto.randomUUID(), text: KEPT_FOR_RESTART };
  state.told.set(target.sessionKey, notice);
  await state.options
    .deliver(target.route, notice)
    .catch((error: unknown) =>
      state.options.logger.warn({ err: error, route: target.route }, 'notice not sent'),
    );
  return notice;
}
