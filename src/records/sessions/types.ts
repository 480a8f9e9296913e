import type { DeliveryRoute, InboundFile } from '../../base/messages/index.js';

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
  /** The seq of the session's latest compaction entry: found even when older than a read's window. */
  compactionSeq?: number;
}

/** What never changes in a session's record (a reset keeps them): what a list may filter on. */
export type SessionIdentity = Pick<SessionRecord, 'key' | 'agentId' | 'route'>;

export interface SessionListOptions {
  /** At most this many sessions (1–1000). */
  limit: number;
  /** Continue after the previous page (its `next`); an unchecked string is a bug (`isSessionCursor`). */
  cursor?: string;
  /** Only the sessions this accepts: pages are read until `limit` are found or the list ends. */
  where?: (session: SessionIdentity) => boolean;
}

/** A page of sessions, most recently active first. */
export interface SessionPage {
  sessions: SessionRecord[];
  /** The cursor of the next page; absent on the last one. */
  next?: string;
}

export interface TranscriptReadOptions {
  /** Only the last this many entries (before `before`, when given); every one when absent. */
  last?: number;
  /** Only entries with a lower seq: paging back from the first seq of the previous read. */
  before?: number;
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
  /** User entries: the files posted with the message (see `InboundMessage.files`). */
  files?: InboundFile[];
  /** The run that wrote an assistant or tool entry. */
  runId?: string;
  /** Assistant entries the model wrote: the model that answered this round (`models.<name>`). */
  model?: string;
  /** Assistant entries: the tools the model called in this round. */
  toolCalls?: TranscriptToolCall[];
  /** Tool entries: which call this is the result of. */
  toolCallId?: string;
  toolName?: string;
  /** Tool entries: the result is an error (refusal, invalid arguments, exception). */
  isError?: boolean;
  /** System entries: a summary of older entries that the model sees instead of them (`TranscriptCompaction`). */
  compaction?: TranscriptCompaction;
}

/**
 * What a compaction entry stands for: the entries from `fromSeq` to `toSeq` (an earlier summary's
 * included), `entries` of them, summarized by the session's model. The model sees its text in
 * their place; the transcript keeps them all.
 */
export interface TranscriptCompaction {
  fromSeq: number;
  toSeq: number;
  entries: number;
}

export type NewTranscriptEntry = Omit<TranscriptEntry, 'seq' | 'at'>;
