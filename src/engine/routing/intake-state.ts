import type { AgentConfig, Config } from '../../base/config/index.js';
import type { Logger } from '../../base/logging/index.js';
import type { DispatchResult, OutboundFor } from '../../base/messages/index.js';
import type { SessionStore, TranscriptEntry } from '../../records/sessions/index.js';
import type { Inbox, InboxItem } from './inbox.js';
import type { SessionQueues } from './session-queues.js';

/** How far back a redelivered or resumed message's entry is looked for in its transcript. */
export const RECENT_ENTRIES = 200;

export interface IntakeOptions {
  config: Config;
  sessions: SessionStore;
  inbox: Inbox;
  queues: SessionQueues;
  scrub(text: string): string;
  outboundFor: OutboundFor;
  logger: Logger;
  /** The clock an interrupted turn's age is measured with (`agentLoop.resumeWithinMs`); `Date.now` unless given. */
  now?: () => number;
}

export interface IntakeState {
  options: IntakeOptions;
  owners: ReadonlySet<string>;
  /** Messages are stored and kept for the next start, not queued. */
  closing: boolean;
  /** No message is taken at all: the store is about to close. */
  sealed: boolean;
  /** Messages being stored: the store must not close under them. */
  accepting: Set<Promise<unknown>>;
  /**
   * Inbox items this process added (and queued): `resume` leaves them alone, since a channel may
   * dispatch before it runs (a Discord catch-up, a held Slack event) and they would be queued twice.
   * Undefined once `resume` ran (nothing to tell apart after it).
   */
  addedHere: Set<string> | undefined;
}

/**
 * Queues an inbox item for its turn (a message just accepted, or one left by the last process:
 * `stored` when that process had written its entry to the transcript already).
 */
export function queueItem(
  state: IntakeState,
  item: InboxItem,
  agent: AgentConfig,
  stored?: TranscriptEntry,
): Promise<DispatchResult> {
  const senderId = item.entry.senderId ?? '';
  return state.options.queues.enqueue(
    { sessionKey: item.sessionKey, agentId: item.agentId, agent, route: item.route, depth: 0 },
    {
      entry: item.entry,
      // Its entry is in the transcript: the last process began its turn, which this one resumes.
      ...(stored ? { stored, resumed: true } : {}),
      senderId,
      isOwner: state.owners.has(senderId),
      origin: 'user',
      inbox: item,
    },
  );
}
