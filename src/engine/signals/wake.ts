import pTimeout from 'p-timeout';
import { errorText } from '../../base/errors/index.js';
import type { Logger } from '../../base/logging/index.js';
import type { DispatchResult } from '../../base/messages/index.js';
import { mainSessionKey } from '../../records/sessions/index.js';
import type { SignalTurns } from './ports.js';
import type { SignalQueue } from './signal-queue.js';
import type { Signal } from './types.js';

/** How long past the drain a stop waits for wake turns to end (a turn may ignore its abort). */
const SETTLE_GRACE_MS = 5000;

interface WakeState {
  queue: SignalQueue;
  turns: SignalTurns;
  logger: Logger;
  /** The bookkeeping of each wake turn under way (it resolves once its signals are settled). */
  answering: Set<Promise<void>>;
  /** Set by `stop`: a wake turn the stop interrupts keeps its signals for the next start. */
  stopping: boolean;
  observer?: WakeObserver;
}

/** Told when a wake turn starts and how it ended (the agents' states and the nudges read it). */
export interface WakeObserver {
  started(agentId: string, signals: readonly Signal[]): void;
  ended(
    agentId: string,
    ended: { status?: DispatchResult['status']; runId?: string; error?: string },
  ): Promise<void>;
}

/**
 * Wakes an agent with signals: a turn in its main session (`agent:<id>:main`, a session no chat
 * reads). The signals are forgotten once that turn has ended, unless the stop aborted it or dropped
 * it from the queue: then they stay stored and the next start delivers them again.
 */
export function createWaker(options: {
  queue: SignalQueue;
  turns: SignalTurns;
  drainTimeoutMs: number;
  logger: Logger;
  observer?: WakeObserver;
}) {
  const state: WakeState = { ...options, answering: new Set(), stopping: false };
  return {
    wake: (agentId: string, signals: Signal[]) => wake(state, agentId, signals),
    /** Marks the gateway as stopping: wake turns it interrupts from now on keep their signals. */
    stop(): void {
      state.stopping = true;
    },
    /**
     * Resolves once every wake turn under way has ended and its signals are settled, or after the
     * drain and a grace (a turn that ignores the stop must not hold it): await it after the
     * router has closed and before the store closes.
     */
    async settled(): Promise<void> {
      const deadline = Date.now() + options.drainTimeoutMs + SETTLE_GRACE_MS;
      while (state.answering.size > 0 && Date.now() < deadline) {
        const milliseconds = Math.max(0, deadline - Date.now());
        await pTimeout(Promise.all([...state.answering]), { milliseconds, fallback: () => undefined });
      }
    },
  };
}

async function wake(state: WakeState, agentId: string, signals: Signal[]): Promise<void> {
  const text = `Signals (from the runtime, not a user): ${JSON.stringify(
    signals.map(({ kind, priority, payload, payloads, source, merged }) => ({
      kind,
      priority,
      ...(payloads ? { payloads } : { payload }),
      source,
      merged,
    })),
  )}`;
  let started: { done: Promise<DispatchResult> };
  try {
    started = await state.turns.startTurn({
      sessionKey: mainSessionKey(agentId),
      agentId,
      route: { channel: 'internal', chatType: 'direct', chatId: mainSessionKey(agentId) },
      entry: { role: 'system', text },
      senderId: 'system:signals',
      // `take` gives one payer per wake: who caused the signals (their message), if anyone.
      ...(signals[0]?.chargedTo === undefined ? {} : { chargedTo: signals[0].chargedTo }),
    });
  } catch (error) {
    await state.queue.restore(signals);
    throw error;
  }
  state.observer?.started(agentId, signals);
  settleWhenAnswered(state, agentId, signals, started.done);
}

function settleWhenAnswered(
  state: WakeState,
  agentId: string,
  signals: Signal[],
  done: Promise<DispatchResult>,
): void {
  const { logger } = state;
  const settled = done
    .then(
      async (result) => {
        const failed = result.status !== 'done' && result.status !== 'interrupted';
        const error = failed ? (result.replies.at(-1)?.text ?? `turn ${result.status}`) : undefined;
        await state.observer?.ended(agentId, {
          ...(result.status ? { status: result.status } : {}),
          ...(result.runId ? { runId: result.runId } : {}),
          ...(error ? { error } : {}),
        });
        if (state.stopping && result.status === 'interrupted') return;
        await state.queue.acknowledge(signals);
      },
      async (error: unknown) => {
        logger.warn({ err: error, agent: agentId }, 'signal turn not run; its signals stay pending');
        await state.observer?.ended(agentId, { status: 'error', error: errorText(error) });
      },
    )
    .catch((error: unknown) => logger.warn({ err: error, agent: agentId }, 'answered signals not cleared'));
  state.answering.add(settled);
  void settled.finally(() => state.answering.delete(settled));
}
