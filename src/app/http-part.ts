import type { SignalDelivery } from '../engine/signals/index.js';
import type { McpServers } from '../extensions/mcp/index.js';
import type { Toolpacks } from '../extensions/toolpacks/index.js';
import {
  agentStatuses,
  createLinkedSessions,
  createSessionActions,
  createSessionsView,
  createSessionTitles,
  createWebchatHistory,
} from '../surfaces/control/index.js';
import type { HttpServer } from '../surfaces/http/index.js';
import { buildHttpServer, type OpsParts } from './build-http.js';
import type { Base } from './gateway-types.js';
import type { HttpToken } from './host-ports.js';
import type { Part } from './part.js';
import type { Turns } from './turns-part.js';

/** What the HTTP part is handed. */
export interface HttpContext {
  base: Base;
  turns: Turns;
  toolpacks: Toolpacks;
  signals: SignalDelivery;
  mcp: McpServers;
  token: HttpToken;
  scrub(text: string): string;
}

/**
 * The HTTP server (`build-http.ts`) over the control plane's read models and actions; the
 * `serving` part listens. Closed after the drain and the channels, before the inbox is sealed.
 */
export function httpPart(): Part<HttpContext, HttpServer> {
  let http: HttpServer | undefined;
  return {
    name: 'http',
    async start(context) {
      const { base, turns, scrub } = context;
      const { channels, options } = base;
      const titles = createSessionTitles({ sessions: base.sessions, names: channels.names, scrub });
      http = await buildHttpServer({
        config: base.config,
        token: context.token.token,
        nextEnvironment: options.nextEnvironment ?? (() => options.environment),
        sessions: createSessionsView({
          sessions: base.sessions,
          router: turns.router,
          subagents: turns.subagents,
          titles,
        }),
        webchatHistory: createWebchatHistory({
          sessions: base.sessions,
          router: turns.router,
          config: base.config,
          scrub,
          ...(channels.webchatJournal ? { journal: channels.webchatJournal } : {}),
        }),
        linkedSessions: createLinkedSessions({
          sessions: base.sessions,
          router: turns.router,
          config: base.config,
          titles,
          outboundFor: channels.outboundFor,
          scrub,
          logger: base.logger.child({ component: 'linked-sessions' }),
        }),
        sessionActions: createSessionActions({
          sessions: base.sessions,
          subagents: turns.subagents,
          outboundFor: channels.outboundFor,
          scrub,
        }),
        sessionEvents: base.sessionEvents,
        channels,
        channelStates: base.supervisor.states,
        toolpacks: context.toolpacks,
        signals: context.signals,
        observed: turns.observed,
        store: base.store,
        hookHealth: turns.scheduler.hookHealth,
        gatewayControl: turns.control,
        safeMode: options.safeMode,
        scrub,
        usage: base.usage,
        logs: options.log,
        identity: turns.identity,
        ops: opsParts(context),
        ...(base.observer && options.metrics ? { metrics: options.metrics } : {}),
        logger: base.logger.child({ component: 'http' }),
      });
      return http;
    },
    async stop() {
      await http?.close();
    },
  };
}

/** What the ops pages (approvals, `/api/status`) read of the running gateway. */
function opsParts({ base, turns, mcp }: HttpContext): OpsParts {
  return {
    models: turns.models,
    configHistory: turns.control.configHistory,
    approvals: () => turns.approvals,
    router: turns.router,
    channels: base.supervisor.details,
    sessions: base.sessions,
    startedAt: base.options.startedAt,
    restarts: base.options.restartHistory ?? (() => []),
    mcpServers: mcp.statuses,
    agents: () => agentStatuses(base.config, turns.riskSummaries),
  };
}
