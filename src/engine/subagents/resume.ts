import type { Announcement, PendingAnnouncement } from './announcements.js';
import type { SubagentRun } from './registry.js';

/** What a start does with the runs and announcements the last process left (see `resumePlan`). */
export interface ResumePlan {
  /** Runs whose announcement was stored but whose end was not written (the process died between). */
  completed: { run: SubagentRun; announcement: Announcement }[];
  /** Runs left running: they cannot go on, and end `interrupted`. */
  interrupted: SubagentRun[];
  /** Runs left waiting for a slot: they never started, and take one now, oldest first. */
  waiting: SubagentRun[];
}

/** Sorts the active runs the last process left by what the next start does with each. Pure. */
export function resumePlan(
  left: readonly SubagentRun[],
  pending: readonly PendingAnnouncement[],
): ResumePlan {
  const stored = new Map(pending.map((item) => [item.announcement.runId, item.announcement]));
  const plan: ResumePlan = { completed: [], interrupted: [], waiting: [] };
  for (const run of left) {
    const announcement = stored.get(run.subagentRunId);
    if (announcement) plan.completed.push({ run, announcement });
    else if (run.status === 'queued') plan.waiting.push(run);
    else plan.interrupted.push(run);
  }
  plan.waiting.sort((first, second) => first.startedAt - second.startedAt);
  return plan;
}

/** Starts of one run that may die before it is given up (a turn's limit too, `routing/intake-resume.ts`). */
export const MAX_ATTEMPTS = 3;

/** What the resume decision of a run left running reads besides the run. */
export interface ResumeFacts {
  /** The child's agent as configured now; undefined when it no longer is. */
  agent: { resume?: 'safe' | 'off' | undefined } | undefined;
  /** When the child session's last entry was written (epoch ms); undefined without one. */
  lastEntryAt: number | undefined;
  now: number;
  /** `agentLoop.resumeWithinMs`. */
  resumeWithinMs: number;
}

export type RunResumeDecision = { kind: 'resume'; resumes: number } | { kind: 'end'; why: string };

/**
 * Whether a run the last process left running goes on from its transcript, as a turn does: not
 * when its agent's `resume` is `off` (or it is gone), at its third interruption, when its child
 * was last active longer ago than the limit, or when it holds steers it had not answered (they
 * become its next run's task, as a steer of an ended child does). Pure.
 */
export function resumeDecision(run: SubagentRun, facts: ResumeFacts): RunResumeDecision {
  if (!facts.agent) return { kind: 'end', why: `agent "${run.agentId}" is no longer configured` };
  if (facts.agent.resume === 'off') return { kind: 'end', why: `agents.${run.agentId}.resume is "off"` };
  if (run.steers !== undefined && run.steers.length > 0)
    return { kind: 'end', why: 'it had steers it had not answered' };
  const resumes = (run.resumes ?? 0) + 1;
  if (resumes >= MAX_ATTEMPTS)
    return { kind: 'end', why: `the gateway stopped each of the ${resumes} times it ran` };
  const age = facts.lastEntryAt === undefined ? 0 : facts.now - facts.lastEntryAt;
  if (age > facts.resumeWithinMs)
    return {
      kind: 'end',
      why: `it was interrupted longer ago than agentLoop.resumeWithinMs (${facts.resumeWithinMs} ms)`,
    };
  return { kind: 'resume', resumes };
}
