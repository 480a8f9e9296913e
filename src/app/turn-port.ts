import { SwitchboardError } from '../base/errors/index.js';
import type { Router } from '../engine/routing/index.js';

/** The router's turns, as the services built before it (sub-agents, signals, tools) reach them. */
export type TurnPort = Pick<
  Router,
  'startTurn' | 'stopTurn' | 'clearQueue' | 'agentBusy' | 'sessionStatus' | 'sessionDepth'
>;

/**
 * The one link that breaks the start-order cycles: the router needs the agent runner, whose tools
 * need the sub-agents and signal delivery, which start turns on the router. This port is created
 * first and handed to all of them; the router is connected to it once, right after it is built.
 * Nothing asks for a turn before the gateway has started (turns come from messages, the scheduler
 * tick and resumed runs, all started after the router), so asking earlier is a bug: it throws.
 * Status reads before then answer idle, as for a session without a turn.
 */
export function createTurnPort(): { turns: TurnPort; connect(router: TurnPort): void } {
  let router: TurnPort | undefined;
  const connected = (): TurnPort => {
    if (!router) throw new SwitchboardError('GATEWAY_STATE', 'the gateway is not running');
    return router;
  };
  return {
    turns: {
      startTurn: (request) => connected().startTurn(request),
      stopTurn: (sessionKey, reason) => connected().stopTurn(sessionKey, reason),
      clearQueue: (sessionKey) => connected().clearQueue(sessionKey),
      agentBusy: (agentId) => connected().agentBusy(agentId),
      sessionStatus: (sessionKey) => router?.sessionStatus(sessionKey) ?? 'idle',
      sessionDepth: (sessionKey) => router?.sessionDepth(sessionKey) ?? 0,
    },
    connect(next) {
      if (router) throw new SwitchboardError('GATEWAY_STATE', 'the turn port is already connected');
      router = next;
    },
  };
}
