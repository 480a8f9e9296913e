import type { TurnStatus } from '../messages/index.js';
import type { RuntimeTurnRequest } from '../sessions/index.js';

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
