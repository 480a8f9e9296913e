import type { Config } from '../../base/config/index.js';
import type { AgentActivity, WakeEnd } from './agent-activity.js';
import { allQuietNudge, backoffDelay, failedNudges, NUDGE_KINDS, type NudgeState } from './nudge-rules.js';

/** Failed wake turns remembered for their retry (the oldest forgotten first). */
const MAX_FAILURES = 256;

import type { SchedulerAgent } from './scheduler.js';
import type { SignalInput } from './types.js';

export { backoffDelay, NUDGE_KINDS, SCHEDULER_SOURCE } from './nudge-rules.js';

export interface NudgesOptions {
  scheduler: Config['scheduler'];
  /** The coordinator agent (its no-effect nudge names delegating and reporting to `user`). */
  coordinator: string;
  activity: AgentActivity;
  /** Whether the queue holds a signal (for one agent, or any). Synchronous: the queue is loaded. */
  hasPending(agentId?: string): boolean;
  /** Records a signal from the scheduler (`source` `scheduler`). */
  record(signal: SignalInput): Promise<void>;
  now?: () => number;
}

/**
 * Suzumio's scheduler nudges. `afterWake` answers a wake turn that ended with no useful effect
 * (`noEffectNudge`); `tickFailed` releases nudges whose delay has passed and retries failed
 * agents (`failedNudge`); `tickAllQuiet` nudges `targetAgent` when everyone is quiet (`allQuietNudge`). A delayed
 * nudge waits here, not in the queue, until it is due (the queue has no not-before); it counts as
 * pending for the agent meanwhile.
 */
export function createNudges(options: NudgesOptions) {
  const now = options.now ?? Date.now;
  const state: NudgeState = {
    scheduler: options.scheduler,
    activity: options.activity,
    now,
    delayed: [],
    failures: new Map(),
    lastAllQuietAt: undefined,
    hasPending: (agentId) =>
      options.hasPending(agentId) ||
      state.delayed.some((nudge) => agentId === undefined || nudge.signal.targetAgent === agentId),
    schedule: async (signal, delayMs) => {
      if (delayMs <= 0) await options.record(signal);
      else state.delayed.push({ dueAt: now() + delayMs, signal });
    },
  };
  return {
    /** After a wake turn: a no-effect nudge when it had none and the limit allows one. */
    async afterWake(ended: WakeEnd): Promise<void> {
      if (ended.failed) {
        // Kept for the failed nudge: how many retries in a row led to this failure.
        state.failures.set(ended.turnId, {
          previousAttempt: ended.nudgeAttempt(NUDGE_KINDS.failed),
          nudged: false,
        });
        if (state.failures.size > MAX_FAILURES)
          state.failures.delete(state.failures.keys().next().value ?? '');
        return;
      }
      const config = options.scheduler.noEffectNudge;
      // Suzumio nudges completed activations only, not cancelled ones (and a stop must not record).
      if (ended.interrupted || ended.usefulEffects > 0 || !config.enabled) return;
      const previous = ended.nudgeAttempt(NUDGE_KINDS.noEffect);
      if (config.maxConsecutive !== 0 && previous >= config.maxConsecutive) return;
      const attempt = previous + 1;
      // Suzumio: the first nudge right away, the second after initialDelayMs, then growing.
      const delayMs = attempt <= 1 ? 0 : backoffDelay(config, attempt - 1);
      const notBefore = delayMs === 0 ? undefined : new Date(now() + delayMs).toISOString();
      await state.schedule(
        {
          kind: NUDGE_KINDS.noEffect,
          targetAgent: ended.agentId,
          priority: config.priority,
          payload: {
            previousActivationId: ended.turnId,
            attempt,
            maxConsecutive: config.maxConsecutive,
            delayMs,
            ...(notBefore ? { notBefore } : {}),
            message: noEffectText(ended.agentId === options.coordinator),
          },
        },
        delayMs,
      );
    },
    /** Each tick, after the toolpacks' hooks: nudges now due, then retries of failed agents. */
    async tickFailed(agents: readonly SchedulerAgent[]): Promise<void> {
      const due = state.delayed.filter((nudge) => nudge.dueAt <= now());
      state.delayed = state.delayed.filter((nudge) => nudge.dueAt > now());
      for (const nudge of due) await options.record(nudge.signal);
      await failedNudges(state, agents);
    },
    /** Each tick, last: the all-quiet nudge. */
    tickAllQuiet: (agents: readonly SchedulerAgent[]) => allQuietNudge(state, agents),
    /** What a restart must keep: the delayed nudges and the failed wake turns' retry counts. */
    snapshot: (): NudgeSnapshot => ({ delayed: state.delayed, failures: [...state.failures] }),
    restore(snapshot: NudgeSnapshot): void {
      state.delayed = [...snapshot.delayed, ...state.delayed];
      for (const [turnId, failure] of snapshot.failures) {
        if (!state.failures.has(turnId)) state.failures.set(turnId, failure);
      }
    },
  };
}

export type Nudges = ReturnType<typeof createNudges>;

export interface NudgeSnapshot {
  delayed: NudgeState['delayed'];
  failures: [string, { previousAttempt: number; nudged: boolean }][];
}

function noEffectText(coordinator: boolean): string {
  const next = coordinator
    ? 'delegate work or report to `user` with messages.send, call coordination.wait_for_signal once you have reported, or completion.submit with the final report'
    : 'report your results or a blocker with messages.send to whoever asked (or the coordinator), or call coordination.wait_for_signal once you have reported';
  return `Your last wake-up ended without any visible effect. Before this one ends, ${next}. Running commands alone is not enough.`;
}
