import { SwitchboardError } from '../../base/errors/index.js';
import type { DispatchResult } from '../../base/messages/index.js';
import type { RuntimeTurnRequest } from '../../records/sessions/index.js';
import type { RouterState } from './router.js';

/**
 * Queues a runtime entry in its session (created when new, with `route`). It runs as the agent's
 * `runtimeAs` identity when configured (an owner turn when that is an owner: owner-only tools,
 * approvals follow it), else as the request's sender, never an owner turn.
 * Resolves once queued; `done` resolves when the turn that answers it ends.
 */
export async function startRuntimeTurn(
  state: RouterState,
  request: RuntimeTurnRequest,
): Promise<{ done: Promise<DispatchResult> }> {
  const { config, sessions } = state.options;
  if (state.closing) throw new SwitchboardError('GATEWAY_STATE', 'the gateway is stopping');
  const configured = config.agents[request.agentId];
  if (!configured)
    throw new SwitchboardError('GATEWAY_STATE', `agent "${request.agentId}" is not configured`);
  await sessions.ensure(request.sessionKey, { agentId: request.agentId, route: request.route });
  const done = state.queues.enqueue(
    {
      sessionKey: request.sessionKey,
      agentId: request.agentId,
      agent: { ...configured, ...request.agentOverrides },
      route: (await sessions.get(request.sessionKey))?.route ?? request.route,
      depth: request.depth ?? 0,
      ...(request.runTimeoutSeconds === undefined ? {} : { runTimeoutSeconds: request.runTimeoutSeconds }),
    },
    {
      entry: request.entry,
      ...(request.appended ? { stored: request.appended } : {}),
      ...(request.resumed ? { resumed: true } : {}),
      senderId: configured.runtimeAs ?? request.senderId,
      ...(request.chargedTo === undefined ? {} : { chargedTo: request.chargedTo }),
      isOwner: configured.runtimeAs !== undefined && state.owners.has(configured.runtimeAs),
      origin: 'runtime',
      ...(request.mode ? { mode: request.mode } : {}),
    },
  );
  return { done };
}
