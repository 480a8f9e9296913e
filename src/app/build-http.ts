import { readFileSync } from 'node:fs';
import { isOwnerIdentity, resolvePrincipal } from '../base/access/index.js';
import type { Config } from '../base/config/index.js';
import type { Logger } from '../base/logging/index.js';
import { approversOf } from '../engine/approvals/index.js';
import type { IdentityPort } from '../engine/identity/index.js';
import type { SignalDelivery } from '../engine/signals/index.js';
import type { GatewayControl } from '../engine/tools/index.js';
import type { Toolpacks } from '../extensions/toolpacks/index.js';
import type { Store } from '../records/store/index.js';
import type { ChannelSupervisor } from '../surfaces/channels/index.js';
import {
  createApprovalsInbox,
  createConfigRoutesOptions,
  createControlServer,
  createGatewayStatus,
  createPeople,
  type GatewayStatusOptions,
  type LinkedSessionsPort,
  type LogsPort,
  type SchedulerHookView,
  type SessionActionsPort,
  type SessionEventsPort,
  type SessionsView,
  scrubbedSessionEvents,
  scrubbedSessionsView,
  storeReadiness,
  type UsagePort,
  type WebchatHistoryPort,
} from '../surfaces/control/index.js';
import type { HttpServer, MetricsPort } from '../surfaces/http/index.js';
import { createVersionProbe } from '../update/index.js';
import type { GatewayChannels } from './build-channels.js';
import { buildToolUi, type Observed } from './build-core-webui.js';
import type { SafeModeState } from './host-ports.js';

/** What the approvals inbox and the health page read (`approvals-inbox.ts`, `gateway-status.ts`). */
export type OpsParts = Parameters<typeof createApprovalsInbox>[0] &
  Omit<GatewayStatusOptions, 'version' | 'store' | 'scrub'>;

/** package.json's version: two levels up from both `src/app` and `dist/app`. */
const PACKAGE_VERSION: string = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
).version;

/** The commit this build runs, read once per process (`/readyz`). */
const RUNNING_VERSION = createVersionProbe();

/**
 * The HTTP server of this gateway: the API, the web chat, the Tools page and its toolpacks report,
 * Slack's events (HTTP mode: until Slack is connected, the listener answers 503 and Slack
 * delivers again), health from the channels' states.
 */
export function buildHttpServer(options: {
  config: Config;
  token: string;
  sessions: SessionsView;
  /** The chat page's threads and history of the signed-in user. */
  webchatHistory: WebchatHistoryPort;
  /** The signed-in person's Slack and Discord direct chats, for the chat page. */
  linkedSessions?: LinkedSessionsPort | undefined;
  /** The control UI's actions on a session (`session-actions.ts`). */
  sessionActions: SessionActionsPort;
  /** The session events bus, for `GET /api/events`. */
  sessionEvents: SessionEventsPort;
  channels: GatewayChannels;
  channelStates: ChannelSupervisor['states'];
  toolpacks: Toolpacks;
  signals: SignalDelivery;
  /** Tool calls and messages, for the built-in WebUI entries and per-tool status. */
  observed: Observed;
  /** The gateway's store (the core WebUI entries read `completion.submit`'s records in it). */
  store: Store;
  /** The signal scheduler's report, checked here against the view http declares. */
  hookHealth(): SchedulerHookView[];
  /** The config page's edits: the same control as the owner's `/config`. */
  gatewayControl?: GatewayControl | undefined;
  /** The environment the next start reads (the env file read again): the Setup page's. */
  nextEnvironment: () => NodeJS.ProcessEnv;
  scrub(text: string): string;
  /** The approvals inbox and the health page. */
  ops: OpsParts;
  /** The usage ledger, for `GET /api/usage`. */
  usage: UsagePort;
  /** The process log's newest lines, for `GET /api/logs`. */
  logs?: LogsPort | undefined;
  /** Identity links and pairing, for the People page (`/api/people…`). */
  identity?: IdentityPort | undefined;
  /** The host's metrics (`GET /metrics`); absent, the route is not served. */
  metrics?: MetricsPort | undefined;
  safeMode?: SafeModeState | undefined;
  logger: Logger;
}): Promise<HttpServer> {
  const { config, toolpacks, scrub } = options;
  const toolUi = buildToolUi({ ...options, logger: options.logger.child({ component: 'tool-ui' }) });
  const configRoutes = options.gatewayControl
    ? createConfigRoutesOptions({
        config,
        control: options.gatewayControl,
        environment: options.nextEnvironment,
      })
    : undefined;
  return createControlServer({
    host: config.http.host,
    port: config.http.port,
    trustProxy: config.http.trustProxy,
    token: options.token,
    users: Object.fromEntries(Object.entries(config.http.users).map(([name, user]) => [name, user.token])),
    logger: options.logger,
    access: {
      isOwner: (senderId) => isOwnerIdentity(config, senderId),
      principal: (senderId) => resolvePrincipal(config, senderId),
      isApprover: (senderId) => approversOf(config).includes(senderId),
    },
    projectId: config.project.id,
    version: PACKAGE_VERSION,
    setupNeeded: config.agents[config.defaultAgent]?.model === undefined,
    sessions: scrubbedSessionsView(options.sessions, scrub),
    sessionActions: options.sessionActions,
    sessionEvents: scrubbedSessionEvents(options.sessionEvents, scrub),
    slackEvents: options.channels.slack?.eventsListener,
    ...healthParts(options),
    metrics: options.metrics && { port: options.metrics, public: config.metrics.public },
    toolUi: {
      projectId: config.project.id,
      entries: toolUi.entries,
      run: toolUi.run,
      toolStatus: toolUi.toolStatus,
      roster: () =>
        Object.entries(config.agents).map(([id, agent]) => ({ id, displayName: agent.displayName ?? id })),
    },
    toolpacks: {
      report: () => ({
        ...toolpacks.report(),
        // An error text may quote anything: scrubbed like the log before it reaches the web UI.
        schedulerHooks: options
          .hookHealth()
          .map((hook) => (hook.error === undefined ? hook : { ...hook, error: scrub(hook.error) })),
      }),
    },
    webchat: options.channels.webchat,
    webchatHistory: options.webchatHistory,
    linkedSessions: options.linkedSessions,
    ...(configRoutes ? { config: configRoutes } : {}),
    ...(configRoutes && options.identity
      ? {
          people: {
            port: createPeople({ config, identity: options.identity }),
            noteSession: configRoutes.noteSession,
          },
        }
      : {}),
    approvals: createApprovalsInbox(options.ops),
    usage: options.usage,
    logs: options.logs,
    status: createGatewayStatus({ ...options.ops, version: PACKAGE_VERSION, store: options.store, scrub }),
  });
}

/** What `/healthz` and `/readyz` read: the channels, the store's probe, each MCP server that is not ready (`mcp:<name>`). */
function healthParts(options: {
  channelStates: ChannelSupervisor['states'];
  ops: OpsParts;
  safeMode?: SafeModeState | undefined;
}) {
  const safe = options.safeMode;
  return {
    // A word and a count: /readyz is public.
    safeMode: () => safe && { cause: safe.cause, uncleanStarts: safe.uncleanStarts, since: safe.since },
    channels: options.channelStates,
    storeProbe: () => storeReadiness(options.ops.sessions),
    runningVersion: RUNNING_VERSION,
    components: () =>
      (options.ops.mcpServers?.() ?? [])
        .filter((server) => server.state !== 'ready')
        .map((server) => ({ component: `mcp:${server.name}`, state: server.state })),
  };
}
