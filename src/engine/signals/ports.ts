import type { DispatchResult } from '../../base/messages/index.js';
import type { RuntimeTurnRequest } from '../../records/sessions/index.js';

/** A turn signal delivery asks for: in an agent's main session, its entry the signals woken with. */
export type WakeTurnRequest = Pick<
  RuntimeTurnRequest,
  'sessionKey' | 'agentId' | 'route' | 'entry' | 'senderId' | 'chargedTo'
>;

/** What signal delivery needs of the router (the gateway hands it over). */
export interface SignalTurns {
  /** Resolves once the turn is queued; `done` when it ends. */
  startTurn(request: WakeTurnRequest): Promise<{ done: Promise<DispatchResult> }>;
  /** Whether any session of the agent has a turn queued or running. */
  agentBusy(agentId: string): boolean;
}
