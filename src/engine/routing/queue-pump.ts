import type { OutboundMessage } from '../../base/messages/index.js';
import type { TranscriptEntry } from '../../records/sessions/index.js';
import { runQueueTurn, scrubEntry } from './queue-turn.js';
import type { ActiveTurn, PendingMessage, QueuesState, QueueTarget, SessionQueue } from './queue-types.js';
import type { SlotHold } from './turn-slots.js';

/** Told in a chat whose message waits for the next start. */
export const KEPT_FOR_RESTART =
  'The gateway is restarting: this message is kept and will be answered when it is back.';

/**
 * Starts the queue's next turn when none is active and messages wait; a queue with neither is
 * forgotten (and the drain woken when it was the last). The turn waits for a global turn slot,
 * which it gives back while it waits for an approval decision (`TurnRequest.yieldSlot`).
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
  const run = async () => {
    const slot = await state.options.slots.acquire(active.controller.signal);
    active.started = true;
    try {
      await runTurn(state, queue, batch, active, slot);
    } finally {
      slot.end();
    }
  };
  void run()
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

/**
 * The next turn's messages: one (`followup`), or the waiting ones from the same side (owners or
 * not) and charged to the same person (a runtime entry's causer), so a turn has one payer.
 */
function nextBatch(state: QueuesState, pending: PendingMessage[]): PendingMessage[] {
  if (state.options.queueMode === 'followup') return pending.splice(0, 1);
  const first = pending[0];
  const count = pending.findIndex(
    (message) => message.isOwner !== first?.isOwner || message.chargedTo !== first?.chargedTo,
  );
  return pending.splice(0, count < 0 ? pending.length : count);
}

async function runTurn(
  state: QueuesState,
  queue: SessionQueue,
  batch: PendingMessage[],
  active: ActiveTurn,
  slot: SlotHold,
): Promise<void> {
  const signal = active.controller.signal;
  const { result, replies } = await runQueueTurn({
    options: state.options,
    target: queue,
    batch,
    isOwner: active.isOwner,
    signal,
    slot,
    stopped: signal.reason === state.stopping,
    admit: (messages) => admit(state, queue, messages),
    takeSteering: () => queue.steering.splice(0),
  });
  const kept = signal.aborted && signal.reason === state.stopping;
  const users = batch.filter((message) => message.inbox !== undefined);
  if (kept && users.length > 0) replies.push(await tellKept(state, queue));
  // Issued before the callers hear of the end (a read after that does not see the items), awaited after.
  const removed = kept ? undefined : forget(state, queue, users);
  const outcome = { status: result.status, ...(result.runId === undefined ? {} : { runId: result.runId }) };
  for (const message of batch) message.resolve({ sessionKey: queue.sessionKey, replies, ...outcome });
  await removed;
}

/**
 * Writes the messages a turn takes to the transcript, in order. Their inbox items are not
 * rewritten: the entry in the transcript is what tells the next start that this turn began
 * (`intake-resume.ts` counts the attempt then).
 */
export async function admit(
  state: QueuesState,
  target: QueueTarget,
  messages: PendingMessage[],
): Promise<TranscriptEntry[]> {
  const { sessions, scrub } = state.options;
  const entries: TranscriptEntry[] = [];
  for (const message of messages) {
    message.stored ??= await sessions.append(target.sessionKey, scrubEntry(message.entry, scrub));
    entries.push(message.stored);
  }
  return entries;
}

/**
 * After a turn that answered them (not one the stop cut short: those wait for the next start),
 * user messages leave the inbox. Their callers have their replies already: a crash before the
 * removal answers them again at the next start, as a crash just before it always could. The
 * session's next turn waits for it, and so does the drain.
 */
async function forget(state: QueuesState, target: QueueTarget, users: PendingMessage[]): Promise<void> {
  const { inbox, logger } = state.options;
  await Promise.all(
    users.map((message) =>
      message.inbox
        ? inbox.remove(message.inbox.id).catch((error: unknown) => {
            logger.warn(
              { err: error, session: target.sessionKey },
              'answered message left in the inbox: the next start answers it again',
            );
          })
        : undefined,
    ),
  );
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
    .outboundFor(target.route)
    .reply(notice)
    .catch((error: unknown) =>
      state.options.logger.warn({ err: error, route: target.route }, 'notice not sent'),
    );
  return notice;
}
