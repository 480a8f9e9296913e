import type PQueue from 'p-queue';
import { TurnAbort, type TurnResult, type TurnRunner } from '../agents/index.js';
import type { DeliveryRoute, DispatchResult, OutboundMessage } from '../channels/index.js';
import type { AgentConfig } from '../config/index.js';
import { SwitchboardError } from '../errors/index.js';
import type { Logger } from '../logging/index.js';
import type { NewTranscriptEntry, SessionStore, TranscriptEntry } from '../sessions/index.js';

const ABORT_GRACE_MS = 2000;

export type QueueMode = 'collect' | 'followup' | 'steer' | 'interrupt';
export type LaneStatus = 'idle' | 'queued' | 'running';

/** A user message that is in the transcript and waits for the turn that answers it. */
export interface PendingMessage {
  entry: TranscriptEntry;
  senderId: string;
  isOwner: boolean;
  /** `steer`: join the running turn before its next model call, whatever the session's queue mode. */
  mode?: 'steer';
  resolve(result: DispatchResult): void;
  reject(error: unknown): void;
}

export interface LaneTarget {
  sessionKey: string;
  agentId: string;
  agent: AgentConfig;
  route: DeliveryRoute;
  /** 0 for chat sessions, n for a sub-agent n levels down. */
  depth: number;
  /** Overrides `agentLoop.runTimeoutSeconds` for this session's turns. */
  runTimeoutSeconds?: number;
}

export interface SessionLanesOptions {
  sessions: SessionStore;
  runner: TurnRunner;
  queueMode: QueueMode;
  /** The global limit on concurrent turns. */
  limiter: PQueue;
  deliver(route: DeliveryRoute, message: OutboundMessage): Promise<void>;
  deliverDelta(route: DeliveryRoute, id: string, delta: string): void;
  logger: Logger;
  /** Removes secret values from reply text before it is stored or sent. */
  scrub(text: string): string;
}

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
 * (`interrupt`). A non-owner's message is never steered into an owner turn: it would run with
 * the owner's tools; it waits for the next turn instead. Turns of all sessions share the
 * global limiter.
 */
export function createSessionLanes(options: SessionLanesOptions) {
  const lanes = new Map<string, Lane>();
  const idleWaiters = new Set<() => void>();
  let closed = false;

  function pump(lane: Lane): void {
    if (lane.active || lane.pending.length === 0) {
      if (!lane.active) {
        lanes.delete(lane.sessionKey);
        if (lanes.size === 0) for (const wake of idleWaiters) wake();
      }
      return;
    }
    const batch = options.queueMode === 'followup' ? lane.pending.splice(0, 1) : lane.pending.splice(0);
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
    const logger = options.logger.child({ session: lane.sessionKey });
    const first = batch[0];
    if (!first) return;
    const replies: OutboundMessage[] = [];
    const signal = active.controller.signal;
    let result: TurnResult = { status: 'killed' };
    if (!signal.aborted) {
      try {
        result = await options.runner.runTurn({
          sessionKey: lane.sessionKey,
          agentId: lane.agentId,
          agent: lane.agent,
          route: lane.route,
          depth: lane.depth,
          ...(lane.runTimeoutSeconds === undefined ? {} : { runTimeoutSeconds: lane.runTimeoutSeconds }),
          messages: batch.map((message) => message.entry),
          senderId: first.senderId,
          isOwner: active.isOwner,
          signal,
          logger,
          onDelta: (id, delta) => options.deliverDelta(lane.route, id, options.scrub(delta)),
          reply: async (message) => {
            const reply = { id: message.id, text: options.scrub(message.text) };
            replies.push(reply);
            await options.deliver(lane.route, reply).catch((error: unknown) => {
              logger.warn({ err: error, route: lane.route }, 'reply delivery failed');
            });
          },
          record: (entry) => options.sessions.append(lane.sessionKey, scrubEntry(entry, options.scrub)),
          takeSteered: () => {
            const taken = lane.steering.splice(0);
            batch.push(...taken);
            return taken.map((message) => message.entry);
          },
        });
      } catch (error) {
        logger.error({ err: error }, 'turn failed');
        const reply = { id: crypto.randomUUID(), text: options.scrub(`The turn failed: ${describe(error)}`) };
        replies.push(reply);
        result = { status: 'error' };
        await options.deliver(lane.route, reply).catch(() => {});
      }
    }
    logger.debug({ status: result.status, messages: batch.length, replies: replies.length }, 'turn ended');
    const outcome = { status: result.status, ...(result.runId === undefined ? {} : { runId: result.runId }) };
    for (const message of batch) message.resolve({ sessionKey: lane.sessionKey, replies, ...outcome });
  }

  return {
    /** Queues a message that is already in the transcript; resolves with the replies of its turn. */
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
      const steer =
        (options.queueMode === 'steer' || message.mode === 'steer') &&
        active?.started === true &&
        (message.isOwner || !active.isOwner);
      const result = new Promise<DispatchResult>((resolve, reject) =>
        (steer ? current.steering : current.pending).push({ ...message, resolve, reject }),
      );
      if (options.queueMode === 'interrupt' && active?.started && !active.controller.signal.aborted) {
        active.controller.abort(new TurnAbort('interrupted', 'a newer message interrupted the run'));
      }
      pump(current);
      return result;
    },
    status(sessionKey: string): LaneStatus {
      const lane = lanes.get(sessionKey);
      if (!lane?.active) return 'idle';
      return lane.active.started ? 'running' : 'queued';
    },
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
    /** Drops the session's waiting messages (they stay in the transcript); their callers get no replies. */
    clear(sessionKey: string): number {
      const lane = lanes.get(sessionKey);
      if (!lane) return 0;
      const dropped = [...lane.steering.splice(0), ...lane.pending.splice(0)];
      for (const message of dropped) message.resolve({ sessionKey, replies: [], status: 'killed' });
      return dropped.length;
    },
    /**
     * Takes no new messages, lets queued and running turns finish for up to `timeoutMs`,
     * then aborts what still runs and waits for it to settle.
     */
    async close(timeoutMs: number): Promise<void> {
      closed = true;
      if (lanes.size === 0) return;
      const idle = new Promise<void>((resolve) => idleWaiters.add(resolve));
      if ((await settleWithin(idle, timeoutMs)) === 'expired') {
        options.logger.warn({ sessions: lanes.size }, 'stop timeout reached; aborting running turns');
        for (const lane of lanes.values()) {
          lane.active?.controller.abort(new TurnAbort('interrupted', 'the gateway is stopping'));
          for (const message of [...lane.steering.splice(0), ...lane.pending.splice(0)]) {
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

async function settleWithin(promise: Promise<void>, ms: number): Promise<'settled' | 'expired'> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<'expired'>((resolve) => {
    timer = setTimeout(() => resolve('expired'), ms);
  });
  try {
    return await Promise.race([promise.then(() => 'settled' as const), expired]);
  } finally {
    clearTimeout(timer);
  }
}

function scrubEntry(entry: NewTranscriptEntry, scrub: (text: string) => string): NewTranscriptEntry {
  return {
    ...entry,
    text: scrub(entry.text),
    ...(entry.toolCalls
      ? { toolCalls: entry.toolCalls.map((call) => ({ ...call, arguments: scrub(call.arguments) })) }
      : {}),
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
