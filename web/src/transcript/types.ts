// What the sessions API answers (`GET /api/sessions`, `/api/sessions/:key/transcript`) and the
// events stream (`GET /api/events`) carries, as the pages read it.

/** A session's queue status (`QueueStatus` in src/engine/routing): the chat and the sessions pages read it. */
export type QueueStatus = 'idle' | 'queued' | 'running';

export interface SessionSummary {
  key: string;
  agentId: string;
  channel: string;
  chatType: string;
  status: QueueStatus;
  transcriptLength: number;
  createdAt: string;
  lastActivityAt: string;
  sessionId: string;
}

export interface TranscriptToolCall {
  id: string;
  name: string;
  /** The raw JSON text the model wrote. */
  arguments: string;
}

export interface TranscriptEntry {
  seq: number;
  at: string;
  role: 'user' | 'assistant' | 'tool' | 'system';
  text: string;
  senderId?: string;
  toolCalls?: TranscriptToolCall[];
  toolCallId?: string;
  toolName?: string;
  isError?: boolean;
  /** A compaction: this system entry's text is a summary the model sees instead of entries fromSeq–toSeq. */
  compaction?: { fromSeq: number; toSeq: number; entries: number };
}

export interface TranscriptPage {
  key: string;
  sessionId: string;
  summary?: SessionSummary;
  entries: TranscriptEntry[];
  /** The `before` of the page further back; absent on the first page. */
  next?: number;
}

export interface SessionPage {
  sessions: SessionSummary[];
  next?: string;
}

/** The events stream's two kinds (`ready` aside). */
export type SessionStreamEvent =
  | { type: 'session'; summary: SessionSummary }
  | { type: 'entry'; key: string; entry: TranscriptEntry };
