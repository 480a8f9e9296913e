import type { AgentConfig } from '../config/index.js';
import type { Logger } from '../logging/index.js';
import type { DeliveryRoute, OutboundMessage, TurnStatus } from '../messages/index.js';
import type { NewTranscriptEntry, TranscriptEntry } from '../sessions/index.js';

export interface TurnRequest {
  sessionKey: string;
  agentId: string;
  agent: AgentConfig;
  route: DeliveryRoute;
  /** 0 for chat sessions, n for a sub-agent n levels down. */
  depth: number;
  /** Overrides `agentLoop.runTimeoutSeconds` (a sub-agent spawned with its own timeout). */
  runTimeoutSeconds?: number;
  /**
   * The messages this turn answers (several in `collect` mode): user messages or runtime entries,
   * written to the transcript as the turn started (after everything recorded before it).
   */
  messages: TranscriptEntry[];
  senderId: string;
  /** True only when the message that started the turn came from an owner. */
  isOwner: boolean;
  /** Aborted by `/stop`, `interrupt` mode or the gateway stopping; the reason is a `TurnAbort`. */
  signal: AbortSignal;
  logger: Logger;
  /** Streams part of the reply `id` to the chat while it is being written. */
  onDelta(id: string, delta: string): void;
  /** Sends a complete reply to the chat (secrets removed). It is not recorded: see `record`. */
  reply(message: OutboundMessage): Promise<void>;
  /** Appends an entry to the session's transcript (secrets removed). */
  record(entry: NewTranscriptEntry): Promise<TranscriptEntry>;
  /**
   * `steer` mode: messages that arrived while this turn ran, written to the transcript by this
   * call (after what the turn recorded so far). Each call returns the ones not returned before;
   * the turn answers them too.
   */
  takeSteered(): Promise<TranscriptEntry[]>;
}

export interface TurnResult {
  status: TurnStatus;
  runId?: string;
}

/** Runs one turn of an agent. It must not throw for an expected failure: it returns a status. */
export interface TurnRunner {
  runTurn(request: TurnRequest): Promise<TurnResult>;
}

/** The reason a turn's signal is aborted with: which status the run ends in, and why. */
export class TurnAbort extends Error {
  readonly status: 'killed' | 'interrupted';

  constructor(status: 'killed' | 'interrupted', message: string) {
    super(message);
    this.name = 'TurnAbort';
    this.status = status;
  }
}
