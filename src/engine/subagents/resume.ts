import { resumeVerdict } from '../agents/index.js';
import type { Announcement, PendingAnnouncement } from './announcements.js';
import type { SubagentRun } from './registry.js';

/** What a start does with the runs and announcements the last process left (see `resumePlan`). */
export interface ResumePlan {
  /** Runs whose announcement was stored but whose end was not written (the process died between). */
  completed: { run: SubagentRun; announcement: Announcement }[];
  /** Runs left running: resumed, or ended `interrupted` (`resumeDecision`). */
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

/** `why`: the reason the run is ended, for its requester (its announcement's `error`) and the log. */
export type RunResumeDecision = { kind: 'resume'; resumes: number } | { kind: 'end'; why: string };

/**
 * Whether a run the last process left running goes on from its transcript, by the resume rule of
 * turns (`resumeVerdict`: at its third interruption, with its agent's `resume: "off"`, or when its
 * child was last active longer ago than the limit, it is ended), and not when its agent is gone or
 * it holds steers it had not answered (they become its next run's task, as a steer of an ended
 * child does). Pure.
 */
export function resumeDecision(run: SubagentRun, facts: ResumeFacts): RunResumeDecision {
  if (!facts.agent) return ended(`agent "${run.agentId}" is no longer configured`);
  if (run.steers !== undefined && run.steers.length > 0) return ended('it had steers it had not answered');
  const resumes = (run.resumes ?? 0) + 1;
  // A run whose child wrote nothing yet was last active when it started.
  const idleMs = facts.now - (facts.lastEntryAt ?? run.startedAt);
  const verdict = resumeVerdict({
    attempts: resumes,
    resume: facts.agent.resume,
    idleMs,
    resumeWithinMs: facts.resumeWithinMs,
  });
  if (verdict.kind === 'resume') return { kind: 'resume', resumes };
  return ended(
    {
      attempts: `the gateway stopped each of the ${resumes} times it ran`,
      off: `agents.${run.agentId}.resume is "off"`,
      stale: `it was cut short ${duration(idleMs)} ago, longer than agentLoop.resumeWithinMs (${duration(facts.resumeWithinMs)})`,
    }[verdict.why],
  );
}

function ended(why: string): RunResumeDecision {
  return { kind: 'end', why: `A restart cut this run short and it was not resumed: ${why}.` };
}

/** `ms` as a person reads it: seconds under two minutes, else minutes. */
function duration(ms: number): string {
  return ms < 120_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`;
}
