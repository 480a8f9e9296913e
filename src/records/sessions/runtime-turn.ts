import type { AgentConfig } from '../../base/config/index.js';
import type { DeliveryRoute } from '../../base/messages/index.js';
import type { NewTranscriptEntry, TranscriptEntry } from './types.js';

/**
 * A turn the runtime starts in a session without an inbound message: a signal's wake, a
 * sub-agent's task, a steer, an announcement to the requester. Never an owner turn. Declared here,
 * below both, because routing runs it and the sub-agents and signals ask for it.
 */
export interface RuntimeTurnRequest {
  sessionKey: string;
  agentId: string;
  /** The session's chat; used when the session is new. */
  route: DeliveryRoute;
  /** Written to the transcript when its turn takes it (a task, a steer, an announcement). */
  entry: NewTranscriptEntry;
  senderId: string;
  /**
   * The chat sender who caused this turn (spawned the sub-agent, sent the message that woke the
   * agent): its model calls count to their budget and usage (`TurnScope.chargedTo`).
   */
  chargedTo?: string;
  /** Replaces parts of the agent's config for this session (a sub-agent's model). */
  agentOverrides?: Partial<AgentConfig>;
  depth?: number;
  runTimeoutSeconds?: number;
  /** `steer`: join the session's running turn before its next model call, if there is one. */
  mode?: 'steer';
  /**
   * The entry is already in the transcript (a delivery resumed after a restart, an announcement
   * delivered again): its turn is queued without appending it again.
   */
  appended?: TranscriptEntry;
  /**
   * A turn the last process began for `appended` and a restart cut short (a sub-agent's run): this
   * turn resumes it from the transcript (`TurnRequest.resumed`).
   */
  resumed?: boolean;
}
