import path from 'node:path';
import type { ModelProvider, ProviderOptions, TurnRunner } from '../agents/index.js';
import type { ChannelSupervisor } from '../channels/index.js';
import {
  type Config,
  createSecretScrubber,
  DEFAULT_CONFIG_PATH,
  type LoadedConfig,
} from '../config/index.js';
import type { HttpServer } from '../http/index.js';
import { SLACK_EVENTS_PATH } from '../http/index.js';
import type { Logger, LoggerHandle } from '../logging/index.js';
import { createRouter, type Router } from '../routing/index.js';
import {
  createRunStore,
  createSessionStore,
  createSubagentRegistry,
  type RunStore,
  type SessionStore,
} from '../sessions/index.js';
import {
  createSignalDelivery,
  type Scheduler,
  type SignalDelivery,
  type SignalInput,
  scheduleSignals,
} from '../signals/index.js';
import { createStore, type Store } from '../store/index.js';
import { createSubagentManager, type SubagentManager } from '../subagents/index.js';
import {
  createToolpacks,
  loadConfiguredToolpacks,
  type ToolpackProblem,
  type Toolpacks,
} from '../toolpacks/index.js';
import type { Tool } from '../tools/index.js';
import { buildAgentRunner } from './build-agent-runner.js';
import { createChannels, type GatewayChannels } from './build-channels.js';
import { buildGatewayControl } from './build-control.js';
import { buildHttpServer } from './build-http.js';
import type { RestartRequest, ScheduledRestart } from './gateway-host.js';
import { resolveHttpToken } from './http-token.js';
import { applyLogSecrets, webchatSignIn } from './log-secrets.js';
import { createRestartNotes } from './restart-note.js';
import { createRestartSentinel } from './restart-sentinel.js';
import { createSessionsView } from './session-views.js';
import { makeStateDirPrivate } from './state-dir.js';
import { createTurnPort, type TurnPort } from './turn-port.js';

/** What an embedder (or a test) may add to a gateway. */
export interface GatewayExtensions {
  /** Replaces the turn runner; tests use it to script slow or failing turns. */
  createRunner?: (context: { configPath: string }) => TurnRunner;
  /** Tools registered next to the built-in ones. */
  tools?: readonly Tool[];
  /** Replaces provider construction; the benchmark wraps the real providers to time model calls. */
  createModelProvider?: (options: ProviderOptions) => ModelProvider;
  /**
   * Whether the log goes to a terminal (`switchboard start` passes stdout's isTTY): only then does
   * a newly generated token appear in the ready line's link. Otherwise (pm2, systemd, a pipe: the
   * log ends up in a file) the line says where the token file is. Default false.
   */
  showTokenLink?: boolean;
}

export interface GatewayOptions extends GatewayExtensions {
  loaded: LoadedConfig;
  log: LoggerHandle;
  /** When the process started (uptime survives restarts). */
  startedAt: number;
  /** The environment `${NAME}` references are read from (config edits validate against it too). */
  environment: NodeJS.ProcessEnv;
  /** The host's restart scheduler (it outlives this gateway). */
  scheduleRestart(request: RestartRequest): Promise<ScheduledRestart>;
  /** The host's id: restart notes it promised for a restart that has not run yet stay pending. */
  restartInstance?: string;
}

export interface Gateway {
  /**
   * Builds and starts every service. The web chat URL carries the token only on the start that
   * generated it (shown once); otherwise it says where the token is.
   */
  start(): Promise<{ url: string; webchatUrl: string | undefined }>;
  /** Stops taking messages, lets turns end (up to `gateway.drainTimeoutMs`), closes everything. */
  stop(): Promise<void>;
  /** The toolpack problems of the running gateway (reported and skipped); [] before start. */
  readonly toolpackProblems: readonly ToolpackProblem[];
  /** Restart notes became due while this gateway runs (a refused restart's answer): deliver them now. */
  wakeRestartNotes(): void;
}

/** What a started (or partly started) gateway has built: what `stop` closes, in its order. */
interface Running {
  stopping: AbortController;
  store?: Store;
  router?: Router;
  http?: HttpServer;
  channels?: ChannelSupervisor;
  subagents?: SubagentManager;
  signals?: SignalDelivery;
  scheduler?: Scheduler;
  toolpacks?: Toolpacks;
  restartNotes?: ReturnType<typeof createRestartNotes>;
  restartNote?: Promise<void>;
}

/** The composition root: the only place where services are constructed and wired together. */
export function createGateway(options: GatewayOptions): Gateway {
  const logger = options.log.logger;
  const running: Running = { stopping: new AbortController() };
  const stop = () => stopServices(running, options.loaded.config.gateway.drainTimeoutMs);
  return {
    async start() {
      try {
        return await startServices(options, running);
      } catch (error) {
        await stop().catch((stopError: unknown) =>
          logger.error({ err: stopError }, 'cleanup after a failed start failed'),
        );
        throw error;
      }
    },
    stop,
    wakeRestartNotes: () => running.restartNotes?.wake(),
    get toolpackProblems() {
      return running.toolpacks?.problems ?? [];
    },
  };
}

/** What every phase of a start shares: the options, the settings derived from them, the store. */
interface Base {
  options: GatewayOptions;
  running: Running;
  config: Config;
  logger: Logger;
  stateDir: string;
  configPath: string;
  store: Store;
  sessions: SessionStore;
  runs: RunStore;
  channels: GatewayChannels;
}

/**
 * Builds every service in dependency order. The start-order cycles (the router needs the agent
 * runner, whose tools need the sub-agents and signal delivery, which start turns on the router)
 * go through one port, created first and connected once the router exists.
 */
async function startServices(options: GatewayOptions, running: Running) {
  const { config } = options.loaded;
  const logger = options.log.logger;
  const stateDir = path.resolve(config.stateDir);
  const tightened = await makeStateDirPrivate(stateDir);
  if (tightened.length > 0)
    logger.info({ stateDir, entries: tightened.slice(0, 20) }, 'state dir made private');
  const token = await resolveHttpToken(config.http.token, stateDir);
  const { secrets, showToken } = applyLogSecrets(options.log, config, token, options.showTokenLink === true);
  const base = await openStorage(options, running, stateDir);
  const turnPort = createTurnPort();
  const { signals, toolpacks } = await buildSignalsAndToolpacks(base, turnPort.turns);
  const scrub = createSecretScrubber(secrets);
  const { router, subagents } = await buildTurns(base, {
    turns: turnPort.turns,
    signals,
    toolpacks,
    secrets,
    scrub,
  });
  turnPort.connect(router);
  const scheduler = scheduleSignals(signals, {
    config,
    hooks: toolpacks.hooks,
    logger: logger.child({ component: 'signals' }),
  });
  running.scheduler = scheduler;
  const url = await serve(base, { router, subagents, toolpacks, scheduler, token: token.token, scrub });

  await subagents.resume();
  // Messages the last process accepted and did not answer (a restart's drain, a crash).
  await router.resume();
  scheduler.start();
  const restartNotes = createRestartNotes({
    sentinel: createRestartSentinel({ stateDir, logger }),
    instance: options.restartInstance ?? 'none',
    sessions: base.sessions,
    deliver: base.channels.deliver,
    logger,
    signal: running.stopping.signal,
  });
  running.restartNotes = restartNotes;
  running.restartNote = restartNotes.run();
  return { url, webchatUrl: base.channels.webchat ? webchatSignIn(url, token, showToken) : undefined };
}

/** The store, the session and run records (runs the last process left running are marked), the channels. */
async function openStorage(options: GatewayOptions, running: Running, stateDir: string): Promise<Base> {
  const { config } = options.loaded;
  const logger = options.log.logger;
  const store = await createStore({ url: config.store.url, stateDir, logger });
  running.store = store;
  // Namespaces in this order: each takes a connection, and the open-file counts of the restart
  // tests expect the store's first one (open already) to go to the sessions.
  const sessions = createSessionStore({ store });
  const runs = createRunStore({ store });
  const interrupted = await runs.markInterrupted();
  if (interrupted.length > 0)
    logger.warn({ runs: interrupted.map((run) => run.runId) }, 'runs interrupted by the last stop');
  return {
    options,
    running,
    config,
    logger,
    stateDir,
    configPath: options.loaded.path ?? DEFAULT_CONFIG_PATH,
    store,
    sessions,
    runs,
    channels: createChannels(config, store, logger),
  };
}

/** Signal delivery first (it reaches the router only through the port), then the toolpacks over it. */
async function buildSignalsAndToolpacks(base: Base, turns: TurnPort) {
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
  const toolpacks = await createToolpacks({
    config,
    configPath: base.configPath,
    stateDir: base.stateDir,
    loaded: await loadConfiguredToolpacks(config, base.options.loaded.path),
    store,
    runs: base.runs,
    // Delivery checks a signal's shape before it queues or posts it.
    signals: { ...signals, record: (signal, source) => signals.record(signal as SignalInput, source) },
    logger: logger.child({ component: 'toolpacks' }),
  });
  running.toolpacks = toolpacks;
  return { signals, toolpacks };
}

/** The gateway control, the sub-agents, the agent runner and the router that runs its turns. */
async function buildTurns(
  base: Base,
  parts: {
    turns: TurnPort;
    signals: SignalDelivery;
    toolpacks: Toolpacks;
    secrets: readonly string[];
    scrub(text: string): string;
  },
) {
  const { options, config, logger, store, sessions, runs, configPath } = base;
  const { loaded } = options;
  const gateway = buildGatewayControl({
    loaded,
    stateDir: base.stateDir,
    environment: options.environment,
    toolpackProblems: parts.toolpacks.problems,
    scrub: parts.scrub,
    sessions,
    scheduleRestart: options.scheduleRestart,
    logger,
  });
  const subagents = createSubagentManager({
    config,
    registry: createSubagentRegistry({ store }),
    sessions,
    runs,
    turns: parts.turns,
    store,
    logger: logger.child({ component: 'subagents' }),
  });
  base.running.subagents = subagents;
  const agentRunner = await buildAgentRunner({
    config,
    configPath,
    extensions: options,
    sessions,
    runs,
    builtinToolpacks: parts.toolpacks.builtins,
    toolpackTools: parts.toolpacks.tools,
    sendMessage: parts.signals.send,
    turns: parts.turns,
    gateway,
    subagents,
    stateDir: base.stateDir,
    logger,
  });
  const router = createRouter({
    config,
    configFile: { path: loaded.path, hash: loaded.hash },
    sessions,
    store,
    runner: options.createRunner?.({ configPath }) ?? agentRunner,
    logger,
    startedAt: options.startedAt,
    secrets: [...parts.secrets],
    gateway,
    subagents: () => subagents,
    deliver: base.channels.deliver,
    deliverDelta: base.channels.deliverDelta,
  });
  base.running.router = router;
  return { router, subagents };
}

/** The channels (connected through the supervisor) and the HTTP server; resolves with its URL. */
async function serve(
  base: Base,
  parts: {
    router: Router;
    subagents: SubagentManager;
    toolpacks: Toolpacks;
    scheduler: Scheduler;
    token: string;
    scrub(text: string): string;
  },
): Promise<string> {
  const { channels, logger, running } = base;
  const supervisor = channels.supervise(logger);
  running.channels = supervisor;
  // Slack or Discord failing to start costs only that channel: it is retried until it connects.
  await supervisor.start(parts.router.dispatch);
  const http = await buildHttpServer({
    config: base.config,
    token: parts.token,
    sessions: createSessionsView(base.sessions, parts.router, parts.subagents),
    channels,
    channelStates: supervisor.states,
    toolpacks: parts.toolpacks,
    hookHealth: parts.scheduler.hookHealth,
    scrub: parts.scrub,
    logger: logger.child({ component: 'http' }),
  });
  running.http = http;
  const url = await http.listen();
  announceStart(base.options, url, channels.slack?.eventsListener !== undefined, base.store);
  return url;
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

/** Order matters: refuse new messages, let turns end, then close transports and storage. */
async function stopServices(running: Running, drainTimeoutMs: number): Promise<void> {
  running.stopping.abort();
  running.channels?.endRetries();
  // Wake turns the stop interrupts from here on keep their signals for the next start.
  running.signals?.stop();
  await running.scheduler?.stop();
  // Sub-agent runs that end during the drain record their end before the store closes.
  const subagentsClosed = running.subagents?.close();
  await running.restartNote;
  await running.router?.close(drainTimeoutMs);
  await subagentsClosed;
  // Wake turns the drain ended clear their signals (or keep them for the next start) before the store closes.
  await running.signals?.settled();
  await running.toolpacks?.stop();
  await running.channels?.stop();
  await running.http?.close();
  // Messages that arrived during the drain are being stored: the store waits for them.
  await running.router?.seal();
  await running.store?.close();
  running.router = undefined;
  running.http = undefined;
  running.store = undefined;
}
