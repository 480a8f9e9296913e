export type ChannelName = 'webchat' | 'slack' | 'discord';

/** Where a session's replies go: a chat, optionally a thread in it. */
export interface DeliveryRoute {
  channel: ChannelName;
  chatType: 'direct' | 'channel';
  /** Platform channel id, or for direct chats the user id. */
  chatId: string;
  threadId?: string;
}

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

export type TranscriptRole = 'user' | 'assistant' | 'system';

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
}

export type NewTranscriptEntry = Omit<TranscriptEntry, 'seq' | 'at'>;
