import type { AgentConfig } from '../../base/config/index.js';

/** The reply for an agent without a model: it names the config keys to set. */
export function noModelReply(options: { agentId: string; agent: AgentConfig; configPath: string }): string {
  const { agentId, configPath } = options;
  return (
    `No model is configured for agent "${agentId}", so it cannot answer messages yet. ` +
    `Add a model under \`models.<name>\` (provider, model, apiKey) and set \`agents.${agentId}.model\` ` +
    `to its name in ${configPath}, then restart: an owner can do it on the control UI's Setup page (#/setup) ` +
    'or with `npx switchboard setup`. Chat commands work without a model: try /help.'
  );
}
