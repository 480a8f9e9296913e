import { modelChain } from '../../../base/config/index.js';
import { clockText } from '../../agents/index.js';
import { type RiskSummary, riskSummaryText, unavailableText } from '../../tools/index.js';
import type { ChatCommand, ModelFailoverView } from './types.js';

export const statusCommand: ChatCommand = {
  name: 'status',
  summary: 'Show the agent, model, queue, uptime and config of this session.',
  async run(context) {
    const { agentId, config, configFile, queues, sessionKey, sessions, uptimeMs, failover } = context;
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
      ...riskLines(context.riskSummary?.(agentId)),
      ...failoverLines(failover),
      `Uptime: ${formatDuration(uptimeMs)}`,
      `Config: ${configFile.hash.slice(0, 12)} (${configFile.path ?? 'built-in defaults'})`,
    ].join('\n');
  },
};

/** The agent's risk summary, and the tools hidden for a missing prerequisite (when any). */
function riskLines(summary: RiskSummary | undefined): string[] {
  if (!summary) return [];
  const unavailable = unavailableText(summary);
  return [`Risk: ${riskSummaryText(summary)}`, ...(unavailable ? [`Unavailable tools: ${unavailable}`] : [])];
}

/** The models cooling down and the last failover (gateway-wide), when there are any. */
function failoverLines(failover: ModelFailoverView | undefined): string[] {
  if (!failover) return [];
  const now = failover.now();
  const lines: string[] = [];
  const cooling = failover.cooldowns();
  if (cooling.length > 0) {
    const each = cooling.map(({ model, until }) => `${model} until ${clockText(until, now)}`);
    lines.push(`Cooling down (rate limited): ${each.join(', ')}`);
  }
  const last = failover.lastFailover();
  if (last) {
    const ago = formatDuration(Math.max(0, now - Date.parse(last.at)));
    lines.push(`Last failover: ${ago} ago, agent ${last.agentId}, ${last.from} → ${last.to}: ${last.why}`);
  }
  return lines;
}

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
