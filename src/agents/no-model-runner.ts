import { randomUUID } from 'node:crypto';
import type { TurnRunner } from './types.js';

/**
 * The runner for agents that cannot call a model: every turn gets one reply that says so
 * and names the config keys to set. Chat commands work without it.
 */
export function createNoModelRunner(options: { configPath: string }): TurnRunner {
  return {
    async runTurn(request) {
      const { agentId, agent } = request;
      const text =
        agent.model === undefined
          ? `No model is configured for agent "${agentId}", so it cannot answer messages yet. ` +
            `Add a model under \`models.<name>\` (provider, model, apiKey) and set \`agents.${agentId}.model\` ` +
            `to its name in ${options.configPath}, then restart. Chat commands work without a model: try /help.`
          : `Agent "${agentId}" is set to model "${agent.model}", but this version of Switchboard cannot call ` +
            'models yet (model providers arrive with the agent runtime). Chat commands work: try /help.';
      return { status: 'done', replies: [{ id: randomUUID(), text }] };
    },
  };
}
