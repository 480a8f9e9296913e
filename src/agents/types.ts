import type { AgentConfig } from '../config/index.js';
import type { Logger } from '../logging/index.js';
import type { TranscriptEntry } from '../sessions/index.js';

export interface TurnRequest {
  sessionKey: string;
  agentId: string;
  agent: AgentConfig;
  /** The user messages this turn answers (several in `collect` mode), already in the transcript. */
  messages: TranscriptEntry[];
  senderId: string;
  /** True only when the message that started the turn came from an owner. */
  isOwner: boolean;
  signal: AbortSignal;
  logger: Logger;
  /** Streams part of the reply `id` to the chat while it is being written. */
  onDelta(id: string, delta: string): void;
}

export type TurnStatus = 'done' | 'error' | 'killed' | 'timeout' | 'interrupted';

export interface TurnResult {
  status: TurnStatus;
  /** Complete replies, in order; each is appended to the transcript and sent to the chat. */
  replies: { id: string; text: string }[];
}

/** Runs one turn of an agent. It must not throw for an expected failure: it returns a status. */
export interface TurnRunner {
  runTurn(request: TurnRequest): Promise<TurnResult>;
}
