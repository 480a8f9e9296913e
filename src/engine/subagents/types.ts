import type { Result } from '../../base/errors/index.js';
import type { TurnStatus } from '../../base/messages/index.js';
import type { RuntimeTurnRequest } from '../../records/sessions/index.js';
import type { SubagentCaller, SubagentsPort } from '../tools/index.js';
import type { SubagentRun } from './registry.js';

/** What the sub-agents hear when a turn they started ends (a part of what the router reports). */
export interface TurnReport {
  /** Absent when the router could not tell: taken as `error`. */
  status?: TurnStatus;
  replies: readonly { text: string }[];
  /** The turn's agent run (a `RunRecord` id), absent when no run was recorded. */
  runId?: string;
}

/**
 * The port the sub-agents need of whoever runs turns (the router): start a turn in a session,
 * stop the session's running turn, drop its queued messages.
 */
export interface SubagentTurns {
  /** Resolves once the turn is queued; `done` resolves when it ends. */
  startTurn(request: RuntimeTurnRequest): Promise<{ done: Promise<TurnReport> }>;
  stopTurn(sessionKey: string, reason: string): unknown;
  clearQueue(sessionKey: string): unknown;
}

/** How a turn in a child session ended, as the sub-agents keep it (built from a `TurnReport`). */
export interface TurnEnd {
  status: TurnStatus;
  /** The turn's last reply; empty when it wrote none. */
  lastReply: string;
  /** The turn's agent run, for its model rounds and tool calls. */
  runId?: string;
}

export function turnEndOf(report: TurnReport): TurnEnd {
  return {
    status: report.status ?? 'error',
    lastReply: report.replies.at(-1)?.text ?? '',
    ...(report.runId === undefined ? {} : { runId: report.runId }),
  };
}

/** A turn that never ran (it failed to start, or a steer was not answered). */
export const FAILED_TURN: TurnEnd = { status: 'error', lastReply: '' };

/** How a steer reached the child: into its waiting or running run, or as a new run of an ended child. */
export interface SteerDelivery {
  mode: 'injected' | 'restarted';
  /** The run that gets the message. */
  subagentRunId: string;
}

export type SteerResult = Result<SteerDelivery>;

/** The sub-agents' own operations, below the actions of `SubagentsPort` (`list`, `kill`, `steer`). */
export interface SubagentsService extends Pick<SubagentsPort, 'spawn'> {
  /** Every run the session spawned (all runs of all its children), oldest first. */
  runs(sessionKey: string): Promise<SubagentRun[]>;
  /**
   * Aborts the child's run and, recursively, its descendants' runs (also below children that
   * have ended), and drops their queued messages. Returns the runs that were active and are now
   * killed (the target first when it was among them); a run whose completion was already being
   * recorded is not killed and not returned.
   */
  kill(run: SubagentRun): Promise<SubagentRun[]>;
  /** A running child gets the message before its next model call; an ended one a new turn. */
  steer(caller: SubagentCaller, run: SubagentRun, message: string): Promise<SteerResult>;
}
