import type { DeliveryRoute } from '../../base/messages/index.js';
import type { SessionRecord } from './types.js';

/** A session's turn: none, waiting for the global limit, or running (routing's queues know it). */
export type QueueStatus = 'idle' | 'queued' | 'running';

/**
 * A session as the HTTP API (`GET /api/sessions`) and the tools (`sessions_list`) list it: its
 * record's fields, flattened, and its queue status.
 */
export interface SessionSummary {
  key: string;
  agentId: string;
  channel: DeliveryRoute['channel'];
  chatType: DeliveryRoute['chatType'];
  status: QueueStatus;
  transcriptLength: number;
  createdAt: string;
  lastActivityAt: string;
  /** Changes on `/new`; the transcript belongs to it. */
  sessionId: string;
}

/** One session in full, as `session_status` shows it: the summary and its running turn. */
export interface SessionDetails extends SessionSummary {
  /** Messages waiting behind the running turn. */
  queued: number;
  /** The running run, if any. */
  runId?: string;
  /** Model rounds since the last user message (see `agentLoop.maxBurst`). */
  burst: number;
  model?: string;
}

/** The one way a record becomes a summary. */
export function summarizeSession(record: SessionRecord, status: QueueStatus): SessionSummary {
  return {
    key: record.key,
    agentId: record.agentId,
    channel: record.route.channel,
    chatType: record.route.chatType,
    status,
    transcriptLength: record.transcriptLength,
    createdAt: record.createdAt,
    lastActivityAt: record.lastActivityAt,
    sessionId: record.sessionId,
  };
}
