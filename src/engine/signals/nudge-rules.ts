import type { Config } from '../../base/config/index.js';
import type { AgentActivity } from './agent-activity.js';
import type { SchedulerAgent } from './scheduler.js';
import type { SignalInput } from './types.js';

/** Who records the nudges (the signals' `source`). */
export const SCHEDULER_SOURCE = 'scheduler';

export const NUDGE_KINDS = {
  noEffect: 'scheduler.no_effect_nudge',
  failed: 'scheduler.failed_nudge',
  allQuiet: 'scheduler.all_quiet_nudge',
} as const;

const FAILED_TEXT =
  'Your last wake-up failed before it finished. Pick up from your history and workspace and try again; if it fails the same way again, report the exact blocker to the coordinator instead of ending silently.';

const ALL_QUIET_TEXT =
  'Every agent is quiet and no signal is pending. Treat it as a stall: ask the others where they are, tell them to go on, or resend work or reviews that went missing, with targeted messages rather than waiting.';

/** `initialDelayMs × backoffFactor^(n−1)` for the n-th delayed nudge in a row, at most `maxDelayMs`. */
export function backoffDelay(
  config: { initialDelayMs: number; backoffFactor: number; maxDelayMs: number },
  n: number,
): number {
  const uncapped = config.initialDelayMs * Math.max(1, config.backoffFactor) ** Math.max(0, n - 1);
  if (!Number.isFinite(uncapped)) return config.maxDelayMs;
  return Math.min(config.maxDelayMs, Math.trunc(uncapped));
}

export interface NudgeState {
  scheduler: Config['scheduler'];
  activity: AgentActivity;
  now(): number;
  /** Nudges waiting out their delay, recorded once due. */
  delayed: { dueAt: number; signal: SignalInput }[];
  /** The failed wake turns: the failed-nudge attempt each was woken with, and whether it got its retry. */
  failures: Map<string, { previousAttempt: number; nudged: boolean }>;
  lastAllQuietAt: number | undefined;
  /** The queue or a delayed nudge holds a signal (for the agent, or any). */
  hasPending(agentId?: string): boolean;
  /** Records the signal now, or once `delayMs` has passed. */
  schedule(signal: SignalInput, delayMs: number): Promise<void>;
}

/**
 * `failedNudge`: an agent `failed` with nothing pending gets a retry signal after a delay that
 * grows with each failure in a row (`initialDelayMs × backoffFactor^(n−1)`, at most
 * `maxDelayMs`), `maxConsecutive` at most (0: no limit); one per failed wake turn.
 */
export async function failedNudges(state: NudgeState, agents: readonly SchedulerAgent[]): Promise<void> {
  const config = state.scheduler.failedNudge;
  if (!config.enabled) return;
  for (const agent of agents) {
    const view = state.activity.view(agent.id);
    if (view?.state !== 'failed' || view.failedTurnId === undefined) continue;
    if (state.hasPending(agent.id)) continue;
    const failure = state.failures.get(view.failedTurnId);
    if (!failure || failure.nudged) continue;
    if (config.maxConsecutive !== 0 && failure.previousAttempt >= config.maxConsecutive) continue;
    failure.nudged = true;
    const attempt = failure.previousAttempt + 1;
    const delayMs = backoffDelay(config, attempt);
    const notBefore = delayMs === 0 ? undefined : new Date(state.now() + delayMs).toISOString();
    await state.schedule(
      {
        kind: NUDGE_KINDS.failed,
        targetAgent: agent.id,
        priority: config.priority,
        payload: {
          previousActivationId: view.failedTurnId,
          attempt,
          maxConsecutive: config.maxConsecutive,
          delayMs,
          ...(notBefore ? { notBefore } : {}),
          error: view.error,
          message: config.message ?? FAILED_TEXT,
        },
      },
      delayMs,
    );
  }
}

/**
 * `allQuietNudge`: when every agent is `quiet` and nothing is pending, a signal for `targetAgent`
 * (an agent of the config), at most once per `cooldownMs`.
 */
export async function allQuietNudge(state: NudgeState, agents: readonly SchedulerAgent[]): Promise<void> {
  const config = state.scheduler.allQuietNudge;
  if (!config.enabled || agents.length === 0) return;
  if (!agents.some((agent) => agent.id === config.targetAgent)) return;
  const views = agents.map((agent) => ({ id: agent.id, status: state.activity.view(agent.id)?.state }));
  if (!views.every((view) => view.status === 'quiet')) return;
  if (state.hasPending()) return;
  const now = state.now();
  if (state.lastAllQuietAt !== undefined && now - state.lastAllQuietAt < config.cooldownMs) return;
  state.lastAllQuietAt = now;
  await state.schedule(
    {
      kind: NUDGE_KINDS.allQuiet,
      targetAgent: config.targetAgent,
      priority: config.priority,
      payload: {
        message: config.message ?? ALL_QUIET_TEXT,
        reason: 'all agents quiet and no pending signals',
        agentStatuses: views,
      },
    },
    0,
  );
}
