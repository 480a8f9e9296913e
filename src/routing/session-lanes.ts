import pTimeout from 'p-timeout';
import { TurnAbort } from '../agents/index.js';
import { SwitchboardError } from '../errors/index.js';
import type { DispatchResult, OutboundMessage } from '../messages/index.js';
import type { TranscriptEntry } from '../sessions/index.js';
import { runLaneTurn, scrubEntry } from './lane-turn.js';
import type { LaneStatus, LaneTarget, PendingMessage, SessionLanesOptions } from './lane-types.js';

export type { LaneStatus, LaneTarget, PendingMessage, QueueMode, SessionLanesOptions } from './lane-types.js';

const ABORT_GRACE_MS = 2000;
/** Told in a chat whose message waits for the next start. */
export const KEPT_FOR_RESTART =
  'The gateway is restarting: this message is kept and will be answered when it is back.';

interface ActiveTurn {
  controller: AbortController;
  started: boolean;
  isOwner: boolean;
}

interface Lane extends LaneTarget {
  pending: PendingMessage[];
  /** `steer` mode: messages for the running turn, taken before its next model call. */
  steering: PendingMessage[];
  active?: ActiveTurn;
}

/**
 * One lane per session: a session runs one turn at a time. Messages that arrive during a turn
 * wait (`collect`: all of them form the next turn; `followup`: one turn each), are shown to the
 * running turn before its next model call (`steer`), or abort it and start the next turn
 * (`interrupt`; only a user's message interrupts, runtime entries wait). A non-owner's message
 * never joins or interrupts an owner turn, and a collect batch never mixes owners' messages with
 * others': it would run with the owner's tools. A message reaches the transcript when its turn
 * takes it, so the model reads it after the reply of the turn it arrived during. Turns of all
 * sessions share the global limiter.
 */
export function createSessionLanes(options: SessionLanesOptions) {
  const lanes = new Map<string, Lane>();
  const idleWaiters = new Set<() => void>();
  /** The abort reason of turns the stop cuts short: their user messages wait for the next start. */
  const stopping = new TurnAbort('interrupted', 'the gateway is stopping');
  /** Per session, the notice that its messages wait for the next start (sent once; replies repeat its id). */
  const told = new Map<string, OutboundMessage>();
  let closed = false;

  /** The next turn's messages: one (`followup`), or the waiting ones from the same side (owners or not). */
  function nextBatch(pending: PendingMessage[]): PendingMessage[] {
    if (options.queueMode === 'followup') return pending.splice(0, 1);
    const owner = pending[0]?.isOwner;
    const count = pending.findIndex((message) => message.isOwner !== owner);
    return pending.splice(0, count < 0 ? pending.length : count);
  }

  /** Writes the messages a turn takes to the transcript, in order, and records that on their inbox items. */
  async function admit(lane: Lane, messages: PendingMessage[]): Promise<TranscriptEntry[]> {
    const entries: TranscriptEntry[] = [];
    for (const message of messages) {
      message.stored ??= await options.sessions.append(
        lane.sessionKey,
        scrubEntry(message.entry, options.scrub),
      );
      if (message.inbox) {
        message.inbox = { ...message.inbox, stored: message.stored, attempts: message.inbox.attempts + 1 };
        await options.inbox.update(message.inbox);
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
    lane: Lane,
    batch: PendingMessage[],
    signal: AbortSignal,
  ): Promise<OutboundMessage | undefined> {
    const kept = signal.aborted && signal.reason === stopping;
    const users = batch.filter((message) => message.inbox !== undefined);
    if (kept && users.length > 0) return tellKept(lane);
    for (const message of users) if (message.inbox) await options.inbox.remove(message.inbox.id);
    return undefined;
  }

  /** Tells a chat, once per session, that its messages wait for the next start; returns the notice. */
  async function tellKept(target: Pick<LaneTarget, 'sessionKey' | 'route'>): Promise<OutboundMessage> {
    const known = told.get(target.sessionKey);
    if (known) return known;
    const notice = { id: crypto.randomUUID(), text: KEPT_FOR_RESTART };
    told.set(target.sessionKey, notice);
    await options
      .deliver(target.route, notice)
      .catch((error: unknown) => options.logger.warn({ err: error, route: target.route }, 'notice not sent'));
    return notice;
  }

  function pump(lane: Lane): void {
    if (lane.active || lane.pending.length === 0) {
      if (!lane.active) {
        lanes.delete(lane.sessionKey);
        if (lanes.size === 0) for (const wake of idleWaiters) wake();
      }
      return;
    }
    const batch = nextBatch(lane.pending);
    const active: ActiveTurn = {
      controller: new AbortController(),
      started: false,
      isOwner: batch.every((message) => message.isOwner),
    };
    lane.active = active;
    void options.limiter
      .add(async () => {
        active.started = true;
        await runTurn(lane, batch, active);
      })
      .catch((error: unknown) => {
        for (const message of batch) message.reject(error);
      })
      .finally(() => {
        lane.active = undefined;
        // Steered messages the turn did not take before it ended get a turn of their own.
        lane.pending.unshift(...lane.steering.splice(0));
        pump(lane);
      });
  }

  async function runTurn(lane: Lane, batch: PendingMessage[], active: ActiveTurn): Promise<void> {
    const signal = active.controller.signal;
    const { result, replies } = await runLaneTurn({
      options,
      lane,
      batch,
      isOwner: active.isOwner,
      signal,
      stopped: signal.reason === stopping,
      admit: (messages) => admit(lane, messages),
      takeSteering: () => lane.steering.splice(0),
    });
    const kept = await settle(lane, batch, signal);
    if (kept) replies.push(kept);
    const outcome = { status: result.status, ...(result.runId === undefined ? {} : { runId: result.runId }) };
    for (const message of batch) message.resolve({ sessionKey: lane.sessionKey, replies, ...outcome });
  }

  return {
    /** Queues a message; resolves with the replies of the turn that answers it. */
    enqueue(
      target: LaneTarget,
      message: Omit<PendingMessage, 'resolve' | 'reject'>,
    ): Promise<DispatchResult> {
      if (closed) return Promise.reject(new SwitchboardError('GATEWAY_STATE', 'the gateway is stopping'));
      let lane = lanes.get(target.sessionKey);
      if (!lane) {
        lane = { ...target, pending: [], steering: [] };
        lanes.set(target.sessionKey, lane);
      }
      const current = lane;
      const active = current.active;
      // A non-owner's message never reaches into an owner turn (it would run with the owner's tools).
      const mayJoin = active?.started === true && (message.isOwner || !active.isOwner);
      const steer = (options.queueMode === 'steer' || message.mode === 'steer') && mayJoin;
      const result = new Promise<DispatchResult>((resolve, reject) =>
        (steer ? current.steering : current.pending).push({ ...message, resolve, reject }),
      );
      const interrupt = options.queueMode === 'interrupt' && message.origin === 'user' && mayJoin;
      if (interrupt && !active?.controller.signal.aborted) {
        active?.controller.abort(new TurnAbort('interrupted', 'a newer message interrupted the run'));
      }
      pump(current);
      return result;
    },
    status(sessionKey: string): LaneStatus {
      const lane = lanes.get(sessionKey);
      if (!lane?.active) return 'idle';
      return lane.active.started ? 'running' : 'queued';
    },
    /** Whether any session of the agent has a turn queued or running. */
    agentBusy(agentId: string): boolean {
      for (const lane of lanes.values()) if (lane.agentId === agentId && lane.active) return true;
      return false;
    },
    tellKept,
    /** Messages waiting behind the current turn. */
    depth(sessionKey: string): number {
      const lane = lanes.get(sessionKey);
      return lane ? lane.pending.length + lane.steering.length : 0;
    },
    /** Aborts the session's current turn; false when none is running. */
    stop(sessionKey: string, reason = 'stopped by /stop'): boolean {
      const active = lanes.get(sessionKey)?.active;
      if (!active || active.controller.signal.aborted) return false;
      active.controller.abort(new TurnAbort('killed', reason));
      return true;
    },
    /**
     * Drops the session's waiting messages: they are written to the transcript (what was said stays
     * recorded) and nothing answers them; their callers get no replies.
     */
    clear(sessionKey: string): number {
      const lane = lanes.get(sessionKey);
      if (!lane) return 0;
      const dropped = [...lane.steering.splice(0), ...lane.pending.splice(0)];
      for (const message of dropped) message.resolve({ sessionKey, replies: [], status: 'killed' });
      const record = async () => {
        await admit(lane, dropped);
        for (const message of dropped) if (message.inbox) await options.inbox.remove(message.inbox.id);
      };
      void record().catch((error: unknown) =>
        options.logger.warn({ err: error, session: sessionKey }, 'dropped messages not recorded'),
      );
      return dropped.length;
    },
    /**
     * Takes no new messages, lets queued and running turns finish for up to `timeoutMs`, then
     * aborts what still runs and waits for it to settle. User messages not answered by then stay
     * in the inbox for the next start (their chats are told); runtime entries are refused.
     */
    async close(timeoutMs: number): Promise<void> {
      closed = true;
      if (lanes.size === 0) return;
      const idle = new Promise<void>((resolve) => idleWaiters.add(resolve));
      if ((await settleWithin(idle, timeoutMs)) === 'expired') {
        options.logger.warn({ sessions: lanes.size }, 'stop timeout reached; aborting running turns');
        for (const lane of lanes.values()) {
          lane.active?.controller.abort(stopping);
          for (const message of [...lane.steering.splice(0), ...lane.pending.splice(0)]) {
            if (message.inbox) {
              const notice = await tellKept(lane);
              message.resolve({ sessionKey: lane.sessionKey, replies: [notice], status: 'interrupted' });
              continue;
            }
            message.reject(
              new SwitchboardError('GATEWAY_STATE', 'the gateway stopped before this message was answered'),
            );
          }
        }
        // A runner that ignores its abort signal must not hold the stop forever.
        if ((await settleWithin(idle, ABORT_GRACE_MS)) === 'expired') {
          options.logger.error(
            { sessions: lanes.size },
            'turns ignored their abort signal; stopping without them',
          );
        }
      }
      idleWaiters.clear();
    },
  };
}

export type SessionLanes = ReturnType<typeof createSessionLanes>;

function settleWithin(promise: Promise<void>, milliseconds: number): Promise<'settled' | 'expired'> {
  return pTimeout(
    promise.then(() => 'settled' as const),
    { milliseconds, fallback: () => 'expired' as const },
  );
}
