import type { AgentConfig } from '../../base/config/index.js';
import { SwitchboardError } from '../../base/errors/index.js';
import type { Logger } from '../../base/logging/index.js';
import type { TurnStatus } from '../../base/messages/index.js';
import type { NewTranscriptEntry, TranscriptEntry } from '../../records/sessions/index.js';
import type { TurnScope } from '../tools/index.js';
import type { UsageCall as LedgerUsageCall } from '../usage/index.js';
import type { ToolLoopEvent } from './tool-loop-events.js';

/**
 * One turn to run: its scope (`TurnScope`: session, agent, route, sender, depth), the agent's
 * config, the messages it answers and the signal that stops it. What it says comes back as its
 * `TurnStream`'s events.
 */
export interface TurnRequest extends TurnScope {
  agent: AgentConfig;
  /**
   * The messages this turn answers (several in `collect` mode): user messages or runtime entries,
   * written to the transcript as the turn started (after everything recorded before it).
   */
  messages: TranscriptEntry[];
  /** Aborted by `/stop`, `interrupt` mode or the gateway stopping; the reason is a `TurnAbort`. */
  signal: AbortSignal;
  /** Overrides `agentLoop.runTimeoutSeconds` (a sub-agent spawned with its own timeout). */
  runTimeoutSeconds?: number;
  /**
   * The turn resumes one a restart cut short (its messages were in the transcript already): tool
   * calls left without a result are repeated when restart-safe, the others get a result saying
   * their outcome is unknown, and the chat is told in one line (`resumeOpenCalls`).
   */
  resumed?: boolean;
}

/**
 * What the session a turn runs in lends it while it runs (pi-mono's loop config: the transcript
 * and the steering messages are the caller's): where its entries are written, the messages
 * steered into it, its turn slot, its logger.
 */
export interface TurnSession {
  /** Appends an entry to the session's transcript (secrets removed); the turn goes on from the entry as written. */
  record(entry: NewTranscriptEntry): Promise<TranscriptEntry>;
  /**
   * `steer` mode: messages that arrived while this turn ran, written to the transcript by this
   * call (after what the turn recorded so far). Each call returns the ones not returned before;
   * the turn answers them too.
   */
  takeSteered(): Promise<TranscriptEntry[]>;
  /**
   * Gives the turn's global slot (`session.maxConcurrentTurns`) back while a tool call waits for a
   * human; the returned function takes one again (ahead of turns waiting to start) and resolves
   * once the turn holds it. Absent: the turn keeps its slot (a runner outside the session queues).
   */
  yieldSlot?(): () => Promise<void>;
  logger: Logger;
}

export interface TurnResult {
  status: TurnStatus;
  runId?: string;
}

/**
 * What a turn tells whoever runs it, in order: `turn_start`, the tool loop's events (and the
 * runner's own `reply`s: a refusal, a timeout, the resumed notice), then `turn_end` with the result.
 */
export type TurnEvent = { type: 'turn_start' } | ToolLoopEvent | { type: 'turn_end'; result: TurnResult };

/**
 * A running turn: its events (iterate them to the end) and its result (pi-mono's `agentLoop`
 * stream). The turn waits for each event it awaits to be taken: the consumer asks for the next
 * event only once it has handled this one, so a `reply` is sent before the loop goes on. A
 * consumer that stops iterating early lets the turn run on without it.
 */
export interface TurnStream extends AsyncIterable<TurnEvent> {
  readonly result: Promise<TurnResult>;
}

/** Hands one event to the turn's consumer; resolves once it has been handled. */
export type TurnEmit = (event: TurnEvent) => Promise<void>;

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

/** Runs turns of agents. A turn must not fail for an expected failure: its result has a status. */
export interface TurnRunner {
  /** Starts the turn; its events and result come back on the stream (iterate it to the end). */
  runTurn(request: TurnRequest, session: TurnSession): TurnStream;
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

/** One model call's usage as the runner reports it: the ledger's `UsageCall`, with the run and session it belongs to. */
export interface UsageCall extends LedgerUsageCall {
  runId: string;
  sessionKey: string;
}

/**
 * What the runner needs of usage and budgets (the composition root builds it over `src/engine/usage`):
 * each model call recorded as it ends, and a budget check before a turn's first model call.
 */
export interface UsageMeter {
  /** Resolves once the call is durably counted (a run that fails later still counted it). */
  record(call: UsageCall): Promise<void>;
  /** Why this turn may not start (a spent daily budget), said for the chat; undefined when it may. */
  refusal(turn: TurnScope): Promise<string | undefined>;
}
