import type { DeliveryRoute } from '../messages/index.js';

export interface SessionRecord {
  /** The routing key, e.g. `agent:main:webchat:direct:local`. */
  key: string;
  agentId: string;
  /** Changes when the session is reset (`/new`); transcripts belong to a session id. */
  sessionId: string;
  route: DeliveryRoute;
  createdAt: string;
  lastActivityAt: string;
  transcriptLength: number;
}

export type TranscriptRole = 'user' | 'assistant' | 'tool' | 'system';

/** A tool call as the model wrote it (arguments are the raw JSON text). */
export interface TranscriptToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface TranscriptEntry {
  /** 0-based position in the transcript. */
  seq: number;
  at: string;
  role: TranscriptRole;
  text: string;
  /** Sender id of user entries (`webchat:local`). */
  senderId?: string;
  /** Platform message id of user entries. */
  messageId?: string;
  /** The run that wrote an assistant or tool entry. */
  runId?: string;
  /** Assistant entries: the tools the model called in this round. */
  toolCalls?: TranscriptToolCall[];
  /** Tool entries: which call this is the result of. */
  toolCallId?: string;
  toolName?: string;
  /** Tool entries: the result is an error (refusal, invalid arguments, exception). */
  isError?: boolean;
}

export type NewTranscriptEntry = Omit<TranscriptEntry, 'seq' | 'at'>;
