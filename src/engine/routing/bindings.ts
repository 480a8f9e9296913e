import type { Binding, Config } from '../../base/config/index.js';
import type { InboundMessage } from '../../base/messages/index.js';
import { chatSessionKey } from '../../records/sessions/index.js';

/**
 * Where a message lands: its binding's agent (or the default) and that agent's session of the
 * message's chat. The router dispatches by it; the control UI finds a web chat's session by it.
 */
export function sessionForMessage(
  config: Pick<Config, 'bindings' | 'defaultAgent'>,
  message: InboundMessage,
): { agentId: string; sessionKey: string } {
  const agentId = resolveAgentId(config.bindings, config.defaultAgent, message);
  return { agentId, sessionKey: chatSessionKey(agentId, message) };
}

/**
 * The agent for an inbound message: the binding whose every given field matches and that
 * gives the most fields wins (the first of equals); without one, the default agent.
 */
export function resolveAgentId(
  bindings: readonly Binding[],
  defaultAgent: string,
  message: InboundMessage,
): string {
  let best: { agent: string; specificity: number } | undefined;
  for (const binding of bindings) {
    const specificity = matchSpecificity(binding.match, message);
    if (specificity !== undefined && (best === undefined || specificity > best.specificity)) {
      best = { agent: binding.agent, specificity };
    }
  }
  return best?.agent ?? defaultAgent;
}

function matchSpecificity(match: Binding['match'], message: InboundMessage): number | undefined {
  const checks: [string | undefined, string | undefined][] = [
    [match.chatType, message.chatType],
    [match.chatId, message.chatId],
    [match.teamId, message.teamId],
    [match.guildId, message.guildId],
  ];
  if (match.channel !== message.channel) return undefined;
  let specificity = 0;
  for (const [wanted, actual] of checks) {
    if (wanted === undefined) continue;
    if (wanted !== actual) return undefined;
    specificity += 1;
  }
  return specificity;
}
