import { errorText } from '../../base/errors/index.js';
import type { GatewayControl } from '../../engine/tools/index.js';
import type { SessionStore } from '../../records/sessions/index.js';
import type { Store } from '../../records/store/index.js';
import type { ChannelDetail } from '../channels/index.js';
import type { McpServerView, StatusView } from './contracts.js';
import type { ModelHealth } from './model-health.js';
import type { StatusPort } from './routes/status.js';
import { probeStore } from './store-probe.js';

/** One start or in-process restart of this process's gateway, kept by the host. */
export interface RestartRecord {
  at: string;
  reason: string;
}

const SHOWN_RESTARTS = 10;
const SHOWN_CHANGES = 5;

export interface GatewayStatusOptions {
  version: string;
  /** When the process started (ms since the epoch). */
  startedAt: number;
  channels: () => ChannelDetail[];
  store: Store;
  /** The store probe: one page of one session, read as every list is. */
  sessions: Pick<SessionStore, 'list'>;
  models: ModelHealth;
  restarts: () => readonly RestartRecord[];
  /** The MCP servers' states; absent, none are shown. */
  mcpServers?: () => McpServerView[];
  configHistory: GatewayControl['configHistory'];
  /** Each agent's risk summary; absent, none are shown. */
  agents?: () => StatusView['agents'];
  /** Every text that may quote an error or an address passes it. */
  scrub(text: string): string;
  now?: () => number;
}

/** The health page's report (`GET /api/status`), built from the live parts at each call. */
export function createGatewayStatus(options: GatewayStatusOptions): StatusPort {
  const now = options.now ?? Date.now;
  const { scrub } = options;
  return {
    async status(): Promise<StatusView> {
      const changes = await options.configHistory();
      return {
        version: options.version,
        startedAt: new Date(options.startedAt).toISOString(),
        uptimeSeconds: Math.max(0, Math.round((now() - options.startedAt) / 1000)),
        channels: options.channels().map((channel) => ({
          name: channel.name,
          state: channel.state,
          ...(channel.reason === undefined ? {} : { reason: scrub(channel.reason) }),
          attempts: channel.attempts,
          since: new Date(channel.since).toISOString(),
          ...(channel.lastDeaf === undefined
            ? {}
            : {
                deafReconnects: channel.deafReconnects ?? 1,
                lastDeaf: {
                  at: new Date(channel.lastDeaf.at).toISOString(),
                  reason: scrub(channel.lastDeaf.reason),
                },
              }),
        })),
        store: await describeStore(options),
        models: options.models.report(),
        ...(options.mcpServers ? { mcpServers: options.mcpServers() } : {}),
        ...lastFailoverOf(options.models),
        restarts: [...options.restarts()]
          .reverse()
          .slice(0, SHOWN_RESTARTS)
          .map((restart) => ({ at: restart.at, reason: scrub(restart.reason) })),
        configChanges: (changes.ok ? changes.value : [])
          .slice(-SHOWN_CHANGES)
          .reverse()
          .map((change) => ({
            number: change.number,
            ts: change.ts,
            actor: change.actor,
            action: change.action,
            changedPaths: change.changedPaths,
            ...(change.note ? { note: scrub(change.note) } : {}),
          })),
        agents: options.agents?.() ?? [],
      };
    },
  };
}

function lastFailoverOf(models: ModelHealth): Pick<StatusView, 'lastFailover'> {
  const lastFailover = models.lastFailover();
  return lastFailover ? { lastFailover } : {};
}

async function describeStore(options: GatewayStatusOptions): Promise<StatusView['store']> {
  const { store, scrub } = options;
  const shown = { driver: store.kind, location: scrub(store.location) };
  const probe = await probeStore(options.sessions);
  return probe.ok
    ? { ...shown, reachable: true }
    : { ...shown, reachable: false, error: scrub(errorText(probe.error)) };
}
