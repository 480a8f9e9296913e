import type { NewTranscriptEntry, RunRecord } from '../../records/sessions/index.js';
import { ANNOUNCEMENT_SENDER, type Announcement } from './announcements.js';
import type { SubagentOutcome, SubagentRun, SubagentRunStatus } from './registry.js';
import type { TurnEnd } from './types.js';

/**
 * The ended record of a sub-agent run, built from the stored one: by its turn, without a turn
 * (killed while waiting, interrupted by a stop), or from the announcement a crashed process had
 * stored for it; and the next run of an ended child. Pure: the manager writes them.
 */

/** The run's last turn ended as `end`; `wasKilled`: a kill came before its end was decided. */
export function endedByTurn(
  run: SubagentRun,
  ending: { end: TurnEnd; wasKilled: boolean; turnRun: RunRecord | undefined; endedAt: number },
): SubagentRun {
  const { end, turnRun, endedAt } = ending;
  // Its steers were all answered by the turns it waited for (`lastSteeredTurn`).
  const { steers: _answered, ...rest } = run;
  const status: SubagentRunStatus = ending.wasKilled ? 'killed' : end.status;
  const outcome: SubagentOutcome = {
    status: status === 'done' ? 'success' : (status as SubagentOutcome['status']),
    // A killed run has no result, whatever it replied before the kill took effect.
    result: status === 'killed' ? '' : end.lastReply,
    rounds: turnRun?.rounds ?? 0,
    toolCalls: turnRun?.toolCalls ?? 0,
    ...(status === 'error' || status === 'timeout' ? { error: turnRun?.outcome ?? status } : {}),
  };
  return { ...rest, status, endedAt, runtimeMs: endedAt - run.startedAt, outcome };
}

/**
 * A run with no turn to end it: steers it never got are dropped with it. `why`: the reason an
 * interrupted run was not resumed (its outcome's `error`).
 */
export function endedWithoutTurn(
  run: SubagentRun,
  status: 'killed' | 'interrupted',
  endedAt: number,
  why?: string,
): SubagentRun {
  const { steers: _undelivered, ...rest } = run;
  const outcome: SubagentOutcome = {
    status,
    result: '',
    rounds: 0,
    toolCalls: 0,
    ...(why === undefined ? {} : { error: why }),
  };
  return { ...rest, status, endedAt, runtimeMs: endedAt - run.startedAt, outcome };
}

/** The run ended and its announcement was stored, but the process died before its end was written. */
export function endedFromAnnouncement(run: SubagentRun, announcement: Announcement): SubagentRun {
  const { status, result, stats } = announcement;
  const outcome: SubagentOutcome = {
    status,
    result,
    rounds: stats.rounds,
    toolCalls: stats.toolCalls,
    ...(announcement.error === undefined ? {} : { error: announcement.error }),
  };
  return {
    ...run,
    status: status === 'success' ? 'done' : status,
    endedAt: run.startedAt + stats.runtimeMs,
    runtimeMs: stats.runtimeMs,
    outcome,
  };
}

/** The run an ended child gets for a message: the message is its task. */
export function nextRun(
  ended: SubagentRun,
  entry: NewTranscriptEntry,
  startedAt: number,
  chargedTo: string | undefined,
): SubagentRun {
  const { endedAt: _endedAt, runtimeMs: _runtimeMs, outcome: _outcome, steers: _steers, ...kept } = ended;
  return {
    ...kept,
    ...(chargedTo === undefined ? {} : { chargedTo }),
    subagentRunId: crypto.randomUUID(),
    task: entry.text,
    taskFrom: {
      role: entry.role === 'system' ? 'system' : 'user',
      senderId: entry.senderId ?? ANNOUNCEMENT_SENDER,
    },
    status: 'queued',
    startedAt,
  };
}
