import type { AgentConfig } from '../config/index.js';
import type { DeliveryRoute, TurnStatus } from '../messages/index.js';
import type { NewTranscriptEntry, TranscriptEntry } from '../sessions/index.js';

/**
 * A turn the sub-agents start in a session without an inbound message: a child's task, a steer,
 * an announcement to the requester. Never an owner turn.
 */
export interface SubagentTurnRequest {
  sessionKey: string;
  agentId: string;
  /** The session's chat; used when the session is new. */
  route: DeliveryRoute;
  /** Written to the transcript when its turn takes it. */
  entry: NewTranscriptEntry;
  senderId: string;
  /** A child's model instead of its agent's. */
  agentOverrides?: Partial<AgentConfig>;
  depth?: number;
  runTimeoutSeconds?: number;
  /** `steer`: join the session's running turn before its next model call, if there is one. */
  mode?: 'steer';
  /** The entry is already in the transcript (an announcement delivered again after a restart). */
  appended?: TranscriptEntry;
}

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
  startTurn(request: SubagentTurnRequest): Promise<{ done: Promise<TurnReport> }>;
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
