import pTimeout from 'p-timeout';
import { SwitchboardError } from '../../base/errors/index.js';
import type { DispatchResult, OutboundMessage } from '../../base/messages/index.js';
import type { TranscriptEntry } from '../../records/sessions/index.js';
import { TurnAbort } from '../agents/index.js';
import { runQueueTurn, scrubEntry } from './queue-turn.js';
import type { PendingMessage, QueueStatus, QueueTarget, SessionQueuesOptions } from './queue-types.js';
import type { SlotHold } from './turn-slots.js';

/** Told in a chat whose message waits for the next start. */
export const KEPT_FOR_RESTART =
  'The gateway is restarting: this message is kept and will be answered when it is back.';

/** How long turns aborted by the stop may take to end before the stop goes on without them. */
const ABORT_GRACE_MS = 2000;
/** How often the drain looks for turns that started waiting for a human meanwhile. */
const WAITING_CHECK_MS = 100;

/** The turn a session queue has taken from its messages: waiting for a turn slot (`started` false) or running. */
interface ActiveTurn {
  controller: AbortController;
  started: boolean;
  isOwner: boolean;
}

/** One session's queue; it exists while the session has a turn or waiting messages. */
interface SessionQueue extends QueueTarget {
  pending: PendingMessage[];
  /** Messages for the running turn, taken before its next model call. */
  steering: PendingMessage[];
  active?: ActiveTurn;
}

/** The state every session queue shares (see `createSessionQueues`). */
interface QueuesState {
  options: SessionQueuesOptions;
  queues: Map<string, SessionQueue>;
  /** Called each time the last queue empties (the drain waits on it). */
  idleWaiters: Set<() => void>;
  /** The abort reason of turns the stop cuts short: their user messages wait for the next start. */
  stopping: TurnAbort;
  /** Per session, the notice that its messages wait for the next start (sent once; replies repeat its id). */
  told: Map<string, OutboundMessage>;
  closed: boolean;
}

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

/**
 * Starts the queue's next turn when none is active and messages wait; a queue with neither is
 * forgotten (and the drain woken when it was the last). The turn waits for a global turn slot,
 * which it gives back while it waits for an approval decision (`TurnRequest.yieldSlot`).
 */
function pump(state: QueuesState, queue: SessionQueue): void {
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
 * (`intake.ts`'s resume counts the attempt then).
 */
async function admit(
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
async function tellKept(
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

/**
 * Drops the session's waiting messages: they are written to the transcript (what was said stays
 * recorded) and nothing answers them; their callers get no replies. Returns how many.
 */
function clearQueue(state: QueuesState, sessionKey: string): number {
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
async function closeQueues(
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
