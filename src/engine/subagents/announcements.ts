import type { SubagentOutcome, SubagentRun } from './registry.js';

/**
 * What the requester's model reads when a child ends: built by the runtime, not the model. Its JSON
 * is model-facing and stored with pending announcements: its fields do not change (`runId` is the
 * sub-agent run's id).
 */
export interface Announcement {
  status: SubagentOutcome['status'];
  label: string;
  result: string;
  stats: { runtimeMs: number; rounds: number; toolCalls: number };
  runId: string;
  childSessionKey: string;
  error?: string;
}

/** An announcement stored until the requester's turn that answers it has ended. */
export interface PendingAnnouncement {
  id: string;
  requesterSessionKey: string;
  announcement: Announcement;
  /** Who spawned the run (`SubagentRun.chargedTo`): the announcement's turn is charged to them. */
  chargedTo?: string;
}

export const ANNOUNCEMENT_SENDER = 'system:subagents';

/** One announcement per run, so storing it twice (a retried end, a restart) keeps one. */
export const announcementId = (runId: string) => `announcement:${runId}`;

export function announcementFor(run: SubagentRun, outcome: SubagentOutcome): Announcement {
  return {
    status: outcome.status,
    label: run.label,
    result: outcome.result,
    stats: { runtimeMs: run.runtimeMs ?? 0, rounds: outcome.rounds, toolCalls: outcome.toolCalls },
    runId: run.subagentRunId,
    childSessionKey: run.childSessionKey,
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
  };
}

export function announcementText(announcement: Announcement): string {
  return `Sub-agent announcement (from the runtime, not a user): ${JSON.stringify(announcement)}`;
}
