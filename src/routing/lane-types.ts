import type PQueue from 'p-queue';
import type { TurnRequest, TurnRunner } from '../agents/index.js';
import type { Logger } from '../logging/index.js';
import type { DeliveryRoute, DispatchResult, OutboundMessage } from '../messages/index.js';
import type { NewTranscriptEntry, SessionStore, TranscriptEntry } from '../sessions/index.js';
import type { Inbox, InboxItem } from './inbox.js';

export type QueueMode = 'collect' | 'followup' | 'steer' | 'interrupt';
export type LaneStatus = 'idle' | 'queued' | 'running';

/** A message waiting for the turn that answers it. */
export interface PendingMessage {
  /** Written to the transcript when its turn starts (or a running turn takes it): after what came before. */
  entry: NewTranscriptEntry;
  /** The entry as written, once it is in the transcript. */
  stored?: TranscriptEntry;
  senderId: string;
  isOwner: boolean;
  /** `user`: a chat message; `runtime`: a signal, an announcement, a sub-agent's task or steer. */
  origin: 'user' | 'runtime';
  /** A user message's durable record, deleted when the turn that answers it ends. */
  inbox?: InboxItem;
  /** `steer`: join the running turn before its next model call, whatever the session's queue mode. */
  mode?: 'steer';
  resolve(result: DispatchResult): void;
  reject(error: unknown): void;
}

/** Which session a lane runs and for whom: the turn request's own fields, so one name per concept. */
export type LaneTarget = Pick<
  TurnRequest,
  'sessionKey' | 'agentId' | 'agent' | 'route' | 'depth' | 'runTimeoutSeconds'
>;

export interface SessionLanesOptions {
  sessions: SessionStore;
  inbox: Inbox;
  runner: TurnRunner;
  queueMode: QueueMode;
  /** The global limit on concurrent turns. */
  limiter: PQueue;
  deliver(route: DeliveryRoute, message: OutboundMessage): Promise<void>;
  deliverDelta(route: DeliveryRoute, id: string, delta: string): void;
  logger: Logger;
  /** Removes secret values from reply text before it is stored or sent. */
  scrub(text: string): string;
}
