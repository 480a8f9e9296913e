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
