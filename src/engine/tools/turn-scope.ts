import type { DeliveryRoute } from '../../base/messages/index.js';

/**
 * The turn description: which session a turn runs in, where its replies go and who started it.
 * Declared once and passed down: the turn request (agents), the session queue's target (routing)
 * and the tool context all carry these fields under these names.
 */
export interface TurnScope {
  sessionKey: string;
  agentId: string;
  /** Where the session's replies go. */
  route: DeliveryRoute;
  /** 0 in chat sessions; 1 in a sub-agent's session, 2 in its child's, … */
  depth: number;
  /** The sender of the message that started the turn. */
  senderId: string;
  /** True only when the message that started the turn came from an owner. */
  isOwner: boolean;
  /**
   * The chat sender who caused a runtime turn (the user whose turn spawned the sub-agent, made the
   * schedule or sent the message that woke it): its model calls count to their budget and usage,
   * its approval requests to their open requests. Absent: `senderId` (a chat turn, or runtime work
   * nobody caused).
   */
  chargedTo?: string;
}

/** The turn description alone, without whatever else `from` carries (callbacks, config). */
export function turnScope(from: TurnScope): TurnScope {
  const { sessionKey, agentId, route, depth, senderId, isOwner, chargedTo } = from;
  return {
    sessionKey,
    agentId,
    route,
    depth,
    senderId,
    isOwner,
    ...(chargedTo === undefined ? {} : { chargedTo }),
  };
}

/** Who a turn's work counts to: the one who caused it (`chargedTo`), else its sender. */
export function causerOf(scope: Pick<TurnScope, 'senderId' | 'chargedTo'>): string {
  return scope.chargedTo ?? scope.senderId;
}
