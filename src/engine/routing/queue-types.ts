import type { Logger } from '../../base/logging/index.js';
import type { DispatchResult, OutboundFor } from '../../base/messages/index.js';
import type { NewTranscriptEntry, SessionStore, TranscriptEntry } from '../../records/sessions/index.js';
import type { TurnRequest, TurnRunner } from '../agents/index.js';
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
