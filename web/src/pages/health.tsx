// The health page (#/health, owners): channels (connected or retrying, with the reason), the
// store, each model's last call and cooldown, the last model failover, the MCP servers (state, tools,
// why one is down), each agent's risk summary, uptime, version and the last restarts, as cards.
// Refreshed every 5 s, so a channel that comes back shows it without a reload.
import './health.css';
import { useCallback } from 'preact/hooks';
import { api } from '../api.js';
import { AgentRiskCard } from '../ops/agent-risk-card.js';
import {
  ChannelsCard,
  GatewayCard,
  ModelsCard,
  RestartsCard,
  type StatusView,
  StoreCard,
} from '../ops/health-cards.js';
import { McpServersCard } from '../ops/mcp-card.js';
import { usePolled } from '../ops/polled.js';

const REFRESH_MS = 5000;

export function HealthPage() {
  const load = useCallback(() => api<StatusView>('/api/status'), []);
  const status = usePolled(load, REFRESH_MS);
  const data = status.data;
  return (
    <section class="health-page" aria-labelledby="page-title" aria-busy={data === undefined}>
      <h2 id="page-title">Health</h2>
      {status.problem ? <p role="alert">Could not load the status: {status.problem}</p> : null}
      {data ? (
        <div class="health-grid" aria-live="polite">
          <ChannelsCard channels={data.channels} />
          <StoreCard store={data.store} />
          <ModelsCard
            models={data.models}
            {...(data.lastFailover ? { lastFailover: data.lastFailover } : {})}
          />
          {data.mcpServers && data.mcpServers.length > 0 ? (
            <McpServersCard servers={data.mcpServers} />
          ) : null}
          <AgentRiskCard agents={data.agents ?? []} />
          <GatewayCard status={data} />
          <RestartsCard status={data} />
        </div>
      ) : status.problem ? null : (
        <p class="muted">Loading…</p>
      )}
    </section>
  );
}
