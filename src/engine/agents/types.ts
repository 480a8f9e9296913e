import type { AgentConfig } from '../../base/config/index.js';
import { SwitchboardError } from '../../base/errors/index.js';
import type { Logger } from '../../base/logging/index.js';
import type { OutboundMessage, TurnStatus } from '../../base/messages/index.js';
import type { NewTranscriptEntry, TranscriptEntry } from '../../records/sessions/index.js';
import type { TurnScope } from '../tools/index.js';

/** One turn to run: its description (`TurnScope`), what it answers, and where its output goes. */
export interface TurnRequest extends TurnScope {
  agent: AgentConfig;
  /** Overrides `agentLoop.runTimeoutSeconds` (a sub-agent spawned with its own timeout). */
  runTimeoutSeconds?: number;
  /**
   * The messages this turn answers (several in `collect` mode): user messages or runtime entries,
   * written to the transcript as the turn started (after everything recorded before it).
   */
  messages: TranscriptEntry[];
  /**
   * The turn resumes one a restart cut short (its messages were in the transcript already): tool
   * calls left without a result are repeated when restart-safe, the others get a result saying
   * their outcome is unknown, and the chat is told in one line (`resumeOpenCalls`).
   */
  resumed?: boolean;
  /** Aborted by `/stop`, `interrupt` mode or the gateway stopping; the reason is a `TurnAbort`. */
  signal: AbortSignal;
  /**
   * Gives the turn's global slot (`session.maxConcurrentTurns`) back while a tool call waits for a
   * human; the returned function takes one again (ahead of turns waiting to start) and resolves
   * once the turn holds it. Absent: the turn keeps its slot (a runner outside the session queues).
   */
  yieldSlot?(): () => Promise<void>;
  logger: Logger;
  /** Streams part of the reply `id` to the chat while it is being written. */
  onDelta(id: string, delta: string): void;
  /** Shows a short status line in the chat ("running schedule.once…"), replaced by the next reply. */
  onStatus?(text: string): void;
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

/** `/compact`: a session's older entries summarized on demand, outside a turn. */
export interface CompactRequest {
  sessionKey: string;
  agentId: string;
  agent: AgentConfig;
  /** Channels prefix each user's words with their sender (as the model sees them in a turn). */
  chatType: TurnScope['route']['chatType'];
  logger: Logger;
  /** Appends the compaction entry to the session's transcript (secrets removed). */
  record(entry: NewTranscriptEntry): Promise<TranscriptEntry>;
}

/** What `/compact` did: how many entries it summarized and the estimated tokens before and after, or why not. */
export type CompactResult =
  | { status: 'compacted'; summarized: number; tokensBefore: number; tokensAfter: number }
  | { status: 'nothing'; reason: string }
  | { status: 'failed'; reason: string };

/** Runs one turn of an agent. It must not throw for an expected failure: it returns a status. */
export interface TurnRunner {
  runTurn(request: TurnRequest): Promise<TurnResult>;
  /** Compacts a session now (`/compact`); never throws for a model failure. Absent: no compaction. */
  compact?(request: CompactRequest): Promise<CompactResult>;
}

/** The reason a turn's signal is aborted with: which status the run ends in, and why. */
export class TurnAbort extends SwitchboardError {
  readonly status: 'killed' | 'interrupted';

  constructor(status: 'killed' | 'interrupted', message: string) {
    super('TURN_ABORTED', message);
    this.name = 'TurnAbort';
    this.status = status;
  }
}
