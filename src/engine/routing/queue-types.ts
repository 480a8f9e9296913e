import type { Logger } from '../../base/logging/index.js';
import type { DispatchResult, OutboundFor, OutboundMessage } from '../../base/messages/index.js';
import type { NewTranscriptEntry, SessionStore, TranscriptEntry } from '../../records/sessions/index.js';
import type { TurnAbort, TurnRequest, TurnRunner } from '../agents/index.js';
import type { Inbox, InboxItem } from './inbox.js';
import type { TurnSlots } from './turn-slots.js';

/** Declared with the session summaries that show it (sessions); the queues are its source. */
export type { QueueStatus } from '../../records/sessions/index.js';

export type QueueMode = 'collect' | 'followup' | 'steer' | 'interrupt';

/** A message waiting for the turn that answers it. */
export interface PendingMessage {
  /** Written to the transcript when its turn starts (or a running turn takes it): after what came before. */
  entry: NewTranscriptEntry;
  /** The entry as written, once it is in the transcript. */
  stored?: TranscriptEntry;
  senderId: string;
  /** A runtime entry's causer (`RuntimeTurnRequest.chargedTo`): its turn is charged to them. */
  chargedTo?: string;
  isOwner: boolean;
  /** `user`: a chat message; `runtime`: a signal, an announcement, a sub-agent's task or steer. */
  origin: 'user' | 'runtime';
  /** A user message's durable record, deleted when the turn that answers it ends. */
  inbox?: InboxItem;
  /** A turn the last process began for it and a restart cut short: this turn resumes it (`TurnRequest.resumed`). */
  resumed?: boolean;
  /** `steer`: join the running turn before its next model call, whatever the session's queue mode. */
  mode?: 'steer';
  resolve(result: DispatchResult): void;
  reject(error: unknown): void;
}

/** Which session a queue runs and for whom: the turn request's own fields, so one name per concept. */
export type QueueTarget = Pick<
  TurnRequest,
  'sessionKey' | 'agentId' | 'agent' | 'route' | 'depth' | 'runTimeoutSeconds'
>;

export interface SessionQueuesOptions {
  sessions: SessionStore;
  inbox: Inbox;
  runner: TurnRunner;
  queueMode: QueueMode;
  /** The global limit on concurrent turns (`session.maxConcurrentTurns`). */
  slots: TurnSlots;
  /** Where a turn's replies, deltas and status lines go: its route's `Outbound`. */
  outboundFor: OutboundFor;
  logger: Logger;
  /** Removes secret values from reply text before it is stored or sent. */
  scrub(text: string): string;
}

/** The turn a session queue has taken from its messages: waiting for a turn slot (`started` false) or running. */
export interface ActiveTurn {
  controller: AbortController;
  started: boolean;
  isOwner: boolean;
}

/** One session's queue; it exists while the session has a turn or waiting messages. */
export interface SessionQueue extends QueueTarget {
  pending: PendingMessage[];
  /** Messages for the running turn, taken before its next model call. */
  steering: PendingMessage[];
  active?: ActiveTurn;
}

/** The state every session queue shares (see `createSessionQueues`). */
export interface QueuesState {
  options: SessionQueuesOptions;
  queues: Map<string, SessionQueue>;
  /** Called each time the last queue empties (the drain waits on it). */
  idleWaiters: Set<() => void>;
  /** The abort reason of turns the stop cuts short: their user messages wait for the next start. */
  stopping: TurnAbort;
  /** Per session, the notice that its messages wait for the next start (sent once; replies repeat its id). */
  told: Map<string, OutboundMessage>;
  closed: boolean;
}
