import { DEFAULT_CONFIG_PATH } from '../config/index.js';
import { SLACK_EVENTS_PATH } from '../http/index.js';
import type { McpServers } from '../mcp/index.js';
import { communicationPolicy } from '../messages/index.js';
import { createObserver, type Observer } from '../observability/index.js';
import type { Router } from '../routing/index.js';
import {
  createRunStore,
  createSessionEvents,
  createSessionStore,
  type QueueStatus,
} from '../sessions/index.js';
import {
  createSignalDelivery,
  type Scheduler,
  type SignalDelivery,
  type SignalInput,
} from '../signals/index.js';
import { createStore, type Store } from '../store/index.js';
import type { SubagentManager } from '../subagents/index.js';
import {
  createMessageLog,
  createToolpacks,
  loadConfiguredToolpacks,
  type Toolpacks,
} from '../toolpacks/index.js';
import type { GatewayControl, RiskSummaries } from '../tools/index.js';
import { createUsageLedger } from '../usage/index.js';
import { agentStatuses } from './agent-risk.js';
import { createChannels, type GatewayChannels } from './build-channels.js';
import type { Observed } from './build-core-webui.js';
import { buildHttpServer, type OpsParts } from './build-http.js';
import type { Base, GatewayOptions, Running } from './gateway-types.js';
import { createSessionActions } from './session-actions.js';
import { createSessionsView } from './session-views.js';
import type { TurnPort } from './turn-port.js';
import { createWebchatHistory } from './webchat-history.js';
import { createWorkspaceFiles } from './workspace-files.js';

/**
 * The store, the session and run records (runs the last process left running are marked), the
 * channels. The session store is observed by the session events bus (the control UI's live view),
 * which reads turn statuses through `status` (the turn port: idle until the router is connected).
 */
export async function openStorage(
  options: GatewayOptions,
  running: Running,
  stateDir: string,
  status: (sessionKey: string) => QueueStatus,
): Promise<Base> {
  const { config } = options.loaded;
  const logger = options.log.logger;
  const observer = options.metrics ? createObserver({ metrics: options.metrics, config }) : undefined;
  const opened = await createStore({ url: config.store.url, stateDir, logger });
  running.store = opened;
  // Every namespace operation timed (store latency); the observed store closes the same store.
  const store = observer ? observer.store(opened) : opened;
  // Namespaces in this order: each takes a connection, and the open-file counts of the restart
  // tests expect the store's first one (open already) to go to the sessions.
  const sessionEvents = createSessionEvents({ status });
  const sessions = sessionEvents.observe(createSessionStore({ store }));
  const runs = createRunStore({ store });
  const usage = createUsageLedger({
    store,
    timeZone: config.budgets.timeZone,
    ...(options.now ? { now: options.now } : {}),
  });
  const configPath = options.loaded.path ?? DEFAULT_CONFIG_PATH;
  const interrupted = await runs.markInterrupted();
  if (interrupted.length > 0)
    logger.warn({ runs: interrupted.map((run) => run.runId) }, 'runs interrupted by the last stop');
  return {
    options,
    running,
    config,
    logger,
    stateDir,
    configPath,
    store,
    sessions,
    sessionEvents,
    runs,
    usage,
    channels: observeDelivery(
      observer,
      await createChannels(config, store, logger, createWorkspaceFiles({ config, configPath, stateDir })),
    ),
    observer,
  };
}

/** Every delivered message counted by channel (replies, posts, approval requests, notes). */
function observeDelivery(observer: Observer | undefined, channels: GatewayChannels): GatewayChannels {
  return observer ? { ...channels, deliver: observer.deliver(channels.deliver) } : channels;
}

/** Signal delivery first (it reaches the router only through the port), then the toolpacks over it. */
export async function buildSignalsAndToolpacks(base: Base, turns: TurnPort) {
  const { config, logger, store, running } = base;
  const signals = createSignalDelivery({
    config,
    store,
    sessions: base.sessions,
    turns,
    deliver: base.channels.deliver,
    logger: logger.child({ component: 'signals' }),
  });
  running.signals = signals;
  // Every sender (messages.send, the Tools page, a controller's store.sendMessage) goes through
  // this send: the message log sees each message once, for the Tools page's conversations.
  const messages = createMessageLog({
    coordinatorAgent: communicationPolicy(config).coordinator,
  });
  const send = messages.watch(signals.send);
  const toolpacks = await createToolpacks({
    config,
    configPath: base.configPath,
    stateDir: base.stateDir,
    loaded: await loadConfiguredToolpacks(config, base.options.loaded.path),
    store,
    runs: base.runs,
    // Delivery checks a signal's shape before it queues or posts it.
    signals: {
      ...signals,
      send,
      storeDb: {
        signals: () =>
          signals.queue.rows().map(({ signal, status, deliveredAt }) => ({
            ...signal,
            status,
            ...(deliveredAt === undefined ? {} : { deliveredAt }),
          })),
        messages: () => messages.rows(),
        activations: () => signals.activations(),
      },
      record: (signal, source, agentId) => {
        // A runner's signal counts as a useful effect of its agent's wake turn (see supervision.ts).
        if (agentId !== undefined) signals.supervision.signalRecorded(agentId, signal);
        return signals.record(signal as SignalInput, source);
      },
    },
    messageRetry: base.options.toolpackMessageRetry,
    logger: logger.child({ component: 'toolpacks' }),
  });
  running.toolpacks = toolpacks;
  return { signals: { ...signals, send }, toolpacks, messages };
}

/** The channels (connected through the supervisor) and the HTTP server; resolves with its URL. */
/** What `serve` is handed of the parts built before it. */
interface ServeParts {
  router: Router;
  subagents: SubagentManager;
  /** Config edits for the config page (the same control the owner's `/config` uses). */
  gateway: GatewayControl;
  toolpacks: Toolpacks;
  scheduler: Scheduler;
  signals: SignalDelivery;
  observed: Observed;
  token: string;
  scrub(text: string): string;
  /** Each model's last call, for the health page. */
  models: OpsParts['models'];
  /** The MCP servers' states: `/readyz` and the health page. */
  mcp: McpServers;
  /** The agents' risk summaries, kept until the config or the registry changes (the health page). */
  riskSummaries: RiskSummaries;
}

export async function serve(base: Base, parts: ServeParts): Promise<string> {
  const { channels, logger, running } = base;
  const supervisor = channels.supervise(logger);
  running.channels = supervisor;
  const observer = base.observer;
  if (observer) {
    running.unbindMetrics = observer.bind({
      queueDepth: parts.router.queueDepth,
      channels: supervisor.states,
      deafReconnects: () =>
        Object.fromEntries(supervisor.details().map((detail) => [detail.name, detail.deafReconnects ?? 0])),
    });
  }
  // Slack or Discord failing to start costs only that channel: it is retried until it connects.
  await supervisor.start(observer ? observer.inbound(parts.router.dispatch) : parts.router.dispatch);
  // Before the scheduler's first tick (and with the channels up, for posts): what the controllers
  // sent just before the last process was killed.
  await parts.toolpacks.replayOutboxes();
  const http = await buildHttpServer({
    config: base.config,
    token: parts.token,
    sessions: createSessionsView(base.sessions, parts.router, parts.subagents),
    webchatHistory: createWebchatHistory({
      sessions: base.sessions,
      router: parts.router,
      config: base.config,
      scrub: parts.scrub,
    }),
    sessionActions: createSessionActions({
      sessions: base.sessions,
      subagents: parts.subagents,
      deliver: channels.deliver,
      scrub: parts.scrub,
    }),
    sessionEvents: base.sessionEvents,
    channels,
    channelStates: supervisor.states,
    toolpacks: parts.toolpacks,
    signals: parts.signals,
    observed: parts.observed,
    store: base.store,
    hookHealth: parts.scheduler.hookHealth,
    gatewayControl: parts.gateway,
    safeMode: base.options.safeMode,
    scrub: parts.scrub,
    usage: base.usage,
    ops: opsParts(base, parts, supervisor.details),
    ...(observer && base.options.metrics ? { metrics: base.options.metrics } : {}),
    logger: logger.child({ component: 'http' }),
  });
  running.http = http;
  const url = await http.listen();
  announceStart(base.options, url, channels.slack?.eventsListener !== undefined, base.store);
  return url;
}

/** What the ops pages (approvals, `/api/status`) read of the running gateway. */
function opsParts(base: Base, parts: ServeParts, channels: OpsParts['channels']): OpsParts {
  return {
    models: parts.models,
    configHistory: parts.gateway.configHistory,
    approvals: () => base.running.approvals,
    router: parts.router,
    channels,
    sessions: base.sessions,
    startedAt: base.options.startedAt,
    restarts: base.options.restartHistory ?? (() => []),
    mcpServers: parts.mcp.statuses,
    agents: () => agentStatuses(base.config, parts.riskSummaries),
  };
}

function announceStart(options: GatewayOptions, url: string, slackEvents: boolean, store: Store): void {
  const { logger } = options.log;
  const { loaded } = options;
  // HTTP mode: until Slack is connected, the listener answers 503 and Slack delivers again.
  if (slackEvents) {
    logger.info(
      { url: `${url}${SLACK_EVENTS_PATH}` },
      "slack events are served here; set Slack's Request URL to this path behind your public address",
    );
  }
  logger.info(
    { store: store.location, config: loaded.path ?? 'built-in defaults', hash: loaded.hash.slice(0, 12) },
    'gateway started',
  );
}
