import { modelChain } from '../../config/index.js';
import type { ChatCommand } from './types.js';

export const statusCommand: ChatCommand = {
  name: 'status',
  summary: 'Show the agent, model, queue, uptime and config of this session.',
  async run({ agentId, config, configFile, queues, sessionKey, sessions, uptimeMs }) {
    const agent = config.agents[agentId];
    const record = await sessions.get(sessionKey);
    const model = agent?.model
      ? modelChain(config, agent.model)
          .map((name) => `${name} (${config.models[name]?.model ?? 'unknown'})`)
          .join(' → ')
      : 'none configured';
    return [
      `Agent: ${agentId}${agent?.displayName ? ` (${agent.displayName})` : ''}`,
      `Model: ${model}`,
      `Session: ${sessionKey}${record ? `, ${record.transcriptLength} entries` : ' (no messages yet)'}`,
      `Turn: ${queues.status(sessionKey)}; queue: ${queues.depth(sessionKey)} waiting`,
      `Uptime: ${formatDuration(uptimeMs)}`,
      `Config: ${configFile.hash.slice(0, 12)} (${configFile.path ?? 'built-in defaults'})`,
    ].join('\n');
  },
};

export function formatDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  const parts: string[] = [];
  const days = Math.floor(seconds / 86400);
  const hours = Math.floor((seconds % 86400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (days) parts.push(`${days}d`);
  if (hours) parts.push(`${hours}h`);
  if (minutes) parts.push(`${minutes}m`);
  parts.push(`${seconds % 60}s`);
  return parts.join(' ');
}
