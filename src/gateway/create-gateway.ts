import path from 'node:path';
import type { AgentRunner, ModelProvider, ProviderOptions, TurnRunner } from '../agents/index.js';
import {
  type ChannelAdapter,
  type ChannelSupervisor,
  createChannelSupervisor,
  createDiscordAdapter,
  createSlackAdapter,
  createWebchatAdapter,
} from '../channels/index.js';
import {
  absentConfigFile,
  collectSecretValues,
  createConfigEditor,
  createSecretScrubber,
  DEFAULT_CONFIG_PATH,
  type LoadedConfig,
} from '../config/index.js';
import { SwitchboardError } from '../errors/index.js';
import { createHttpServer, type HttpServer, SLACK_EVENTS_PATH } from '../http/index.js';
import type { LoggerHandle } from '../logging/index.js';
import type { DeliveryRoute, OutboundMessage } from '../messages/index.js';
import { createRouter, type Router } from '../routing/index.js';
import { createRunStore, createSessionStore, createSubagentRegistry } from '../sessions/index.js';
import { createStore, type Store, storeUrlSecrets } from '../store/index.js';
import { createSubagentManager, type SubagentManager } from '../subagents/index.js';
import {
  checkWebuiHandlers,
  listWebuiEntries,
  type ToolpackProblem,
  type ToolpackRuntime,
} from '../toolpacks/index.js';
import type { Tool } from '../tools/index.js';
import { buildAgentRunner } from './build-agent-runner.js';
import { buildSignals, type Signals } from './build-signals.js';
import { buildToolpackRuntime } from './build-toolpacks.js';
import { createStoreChannelMemory } from './channel-memory.js';
import { checkStartable } from './check-startable.js';
import { createGatewayControl } from './gateway-control.js';
import type { RestartRequest, ScheduledRestart } from './gateway-host.js';
import { resolveHttpToken } from './http-token.js';
import { createRestartNotes } from './restart-note.js';
import { createRestartSentinel } from './restart-sentinel.js';
import { createSessionsService, createSessionsView } from './session-views.js';
import { makeStateDirPrivate } from './state-dir.js';
import { describeProblem, loadConfiguredToolpacks } from './toolpack-check.js';

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

/** The composition root: the only place where services are constructed and wired together. */
export function createGateway(options: GatewayOptions): Gateway {
  const { loaded } = options;
  const { config } = loaded;
  const logger = options.log.logger;
  const stateDir = path.resolve(config.stateDir);
  let store: Store | undefined;
  let router: Router | undefined;
  let http: HttpServer | undefined;
  const adapters: ChannelAdapter[] = [];
  let channels: ChannelSupervisor | undefined;
  const reconnectOf = (name: string) =>
    name === 'slack' || name === 'discord' ? config.channels[name]?.reconnect : undefined;
  const stopping = new AbortController();
  let subagents: SubagentManager | undefined;
  let restartNote: Promise<void> | undefined;
  let restartNotes: ReturnType<typeof createRestartNotes> | undefined;
  let toolpackRuntime: ToolpackRuntime | undefined;
  let signals: Signals | undefined;
  let toolpackProblems: readonly ToolpackProblem[] = [];

  async function start() {
    try {
      return await startServices();
    } catch (error) {
      await stop().catch((stopError: unknown) =>
        logger.error({ err: stopError }, 'cleanup after a failed start failed'),
      );
      throw error;
    }
  }

  async function startServices() {
    const tightened = await makeStateDirPrivate(stateDir);
    if (tightened.length > 0)
      logger.info({ stateDir, entries: tightened.slice(0, 20) }, 'state dir made private');
    const token = await resolveHttpToken(config.http.token, stateDir);
    // store.url is secret only as far as it carries a password: a plain location stays readable.
    const secrets = [
      ...new Set([
        ...collectSecretValues(config).filter((secret) => secret !== config.store.url),
        ...storeUrlSecrets(config.store.url),
        token.token,
      ]),
    ];
    // A new token is shown once, in the ready line, and only on a terminal, so the web chat can be
    // opened; in a log file it would stay readable. After that it is a secret like the others.
    const showToken = token.source === 'generated' && options.showTokenLink === true;
    options.log.setSecrets(showToken ? secrets.filter((secret) => secret !== token.token) : secrets);
    if (showToken) logger.info({ file: token.file }, 'generated a new HTTP token');

    store = await createStore({ url: config.store.url, stateDir, logger });
    const sessions = createSessionStore({ store });
    const runs = createRunStore({ store });
    const interrupted = await runs.markInterrupted();
    if (interrupted.length > 0) {
      logger.warn({ runs: interrupted.map((run) => run.runId) }, 'runs interrupted by the last stop');
    }
    const webchat = config.channels.webchat.enabled
      ? createWebchatAdapter({ logger: logger.child({ channel: 'webchat' }) })
      : undefined;
    if (webchat) adapters.push(webchat);
    if (config.channels.discord) {
      adapters.push(
        createDiscordAdapter({
          config: config.channels.discord,
          logger: logger.child({ channel: 'discord' }),
          memory: createStoreChannelMemory({ store, channel: 'discord' }),
        }),
      );
    }
    const slack = config.channels.slack
      ? createSlackAdapter({
          config: config.channels.slack,
          logger: logger.child({ channel: 'slack' }),
          memory: createStoreChannelMemory({ store, channel: 'slack' }),
        })
      : undefined;
    if (slack) adapters.push(slack);
    const adapterFor = (route: DeliveryRoute) => adapters.find((adapter) => adapter.name === route.channel);
    const deliver = async (route: DeliveryRoute, message: OutboundMessage) => {
      if (route.channel === 'internal') return;
      const adapter = adapterFor(route);
      if (!adapter) throw new Error(`no channel adapter for ${route.channel}`);
      await adapter.send(route, message);
    };
    const configPath = loaded.path ?? DEFAULT_CONFIG_PATH;

    const toolpacks = await loadConfiguredToolpacks(config, loaded.path);
    for (const problem of toolpacks.problems) {
      logger.warn(
        { file: problem.file, rule: problem.rule },
        `toolpack skipped: ${describeProblem(problem)}`,
      );
    }
    const local = buildToolpackRuntime({
      config,
      configPath,
      stateDir,
      toolpacks: toolpacks.toolpacks,
      store,
      runs,
      signals: () => {
        if (!signals) throw new SwitchboardError('GATEWAY_STATE', 'the gateway is not running');
        return signals;
      },
      logger: logger.child({ component: 'toolpacks' }),
    });
    toolpackRuntime = local.runtime;
    // A declared WebUI entry without a handler is a problem like any other: reported, left out.
    const webuiProblems = await checkWebuiHandlers(toolpacks.toolpacks, local.controllers);
    for (const problem of webuiProblems) {
      logger.warn(
        { file: problem.file, rule: problem.rule },
        `toolpack entry skipped: ${describeProblem(problem)}`,
      );
    }
    toolpacks.problems.push(...webuiProblems);
    toolpackProblems = toolpacks.problems;
    const webuiEntries = listWebuiEntries(toolpacks.toolpacks, webuiProblems);
    const scrub = createSecretScrubber(secrets);
    const gatewayControl = createGatewayControl({
      config,
      editor: createConfigEditor({
        path: path.resolve(loaded.path ?? DEFAULT_CONFIG_PATH),
        stateDir,
        environment: options.environment,
        // The start check, against this gateway: its toolpack problems are known, its channels connected.
        dryRun: async (next, file, { via }) =>
          (
            await checkStartable(next, file, {
              running: { config, toolpackProblems: toolpacks.problems },
              via,
              logger: logger.child({ component: 'start-check' }),
            })
          ).issues,
        ...(loaded.path === undefined
          ? { absentFile: absentConfigFile(path.resolve(DEFAULT_CONFIG_PATH)) }
          : {}),
        scrub,
      }),
      sessions,
      scheduleRestart: options.scheduleRestart,
      logger: logger.child({ component: 'gateway-control' }),
    });
    // The sub-agent service and the router need each other: the service reaches the router late.
    const routerNow = () => {
      if (!router) throw new SwitchboardError('GATEWAY_STATE', 'the gateway is not running');
      return router;
    };
    subagents = createSubagentManager({
      config,
      registry: createSubagentRegistry({ store }),
      sessions,
      runs,
      turns: {
        startTurn: (request) => routerNow().startTurn(request),
        stopTurn: (key, reason) => routerNow().stopTurn(key, reason),
        clearQueue: (key) => routerNow().clearQueue(key),
      },
      store,
      logger: logger.child({ component: 'subagents' }),
    });
    const subagentService = subagents;
    const agentRunner: AgentRunner = await buildAgentRunner({
      config,
      configPath,
      extensions: options,
      sessions,
      runs,
      builtinToolpacks: toolpacks.builtins,
      sendMessage: async (message) => {
        if (!signals) throw new SwitchboardError('GATEWAY_STATE', 'the gateway is not running');
        return signals.send(message);
      },
      toolpackTools: toolpacks.toolpacks.map((toolpack) => ({
        toolpackId: toolpack.id,
        tools: local.runtime.tools.filter((tool) =>
          toolpack.tools.some((declared) => declared.name === tool.name),
        ),
      })),
      stateDir,
      logger,
      services: {
        sessions: createSessionsService({
          sessions,
          status: (key) => router?.sessionStatus(key) ?? 'idle',
          depth: (key) => router?.sessionDepth(key) ?? 0,
          activity: (key) => agentRunner.activity(key),
          config,
        }),
        gateway: gatewayControl,
        subagents: subagentService,
      },
    });

    router = createRouter({
      config,
      configFile: { path: loaded.path, hash: loaded.hash },
      sessions,
      store,
      runner: options.createRunner?.({ configPath }) ?? agentRunner,
      logger,
      startedAt: options.startedAt,
      secrets,
      gateway: gatewayControl,
      subagents: () => subagentService,
      deliver,
      deliverDelta(route, id, delta) {
        adapterFor(route)?.sendDelta?.(route, { id, delta });
      },
    });
    signals = buildSignals({
      config,
      store,
      sessions,
      router: routerNow,
      deliver,
      controllers: local.controllers,
      logger: logger.child({ component: 'signals' }),
    });
    channels = createChannelSupervisor({
      channels: adapters.map((adapter) => ({ adapter, reconnect: reconnectOf(adapter.name) })),
      logger,
    });
    // Slack or Discord failing to start costs only that channel: it is retried until it connects.
    await channels.start(router.dispatch);
    const channelStates = channels.states;

    // HTTP mode: until Slack is connected, the listener answers 503 and Slack delivers again.
    const slackEvents = slack?.eventsListener;
    http = await createHttpServer({
      host: config.http.host,
      port: config.http.port,
      token: token.token,
      logger: logger.child({ component: 'http' }),
      sessions: createSessionsView(sessions, router, subagentService),
      slackEvents,
      channels: channelStates,
      toolUi: {
        projectId: config.project.id,
        entries: () => webuiEntries,
        run: (toolpackId, entryId, input) => {
          const controller = local.controllers.get(toolpackId);
          if (!controller) throw new Error(`no controller for toolpack ${toolpackId}`);
          return controller.webui(entryId, input);
        },
        roster: () =>
          Object.entries(config.agents).map(([id, agent]) => ({ id, displayName: agent.displayName ?? id })),
      },
      toolpacks: {
        report: () => ({
          toolpacks: toolpacks.toolpacks.map((toolpack) => ({
            id: toolpack.id,
            directory: toolpack.directory,
            tools: toolpack.tools.map((tool) => tool.name),
            webui: toolpack.webui.map((entry) => entry.id),
          })),
          builtins: toolpacks.builtins,
          problems: toolpacks.problems,
          // An error text may quote anything: scrubbed like the log before it reaches the web UI.
          schedulerHooks: (signals?.scheduler.hookHealth() ?? []).map((hook) =>
            hook.error === undefined ? hook : { ...hook, error: scrub(hook.error) },
          ),
        }),
      },
      webchat,
    });
    const url = await http.listen();
    if (slackEvents)
      logger.info(
        { url: `${url}${SLACK_EVENTS_PATH}` },
        "slack events are served here; set Slack's Request URL to this path behind your public address",
      );
    logger.info(
      { store: store.location, config: loaded.path ?? 'built-in defaults', hash: loaded.hash.slice(0, 12) },
      'gateway started',
    );
    await subagentService.resume();
    // Messages the last process accepted and did not answer (a restart's drain, a crash).
    await router.resume();
    signals.scheduler.start();
    restartNotes = createRestartNotes({
      sentinel: createRestartSentinel({ stateDir, logger }),
      instance: options.restartInstance ?? 'none',
      sessions,
      deliver,
      logger,
      signal: stopping.signal,
    });
    restartNote = restartNotes.run();
    const signIn = showToken
      ? `/?token=${encodeURIComponent(token.token)}`
      : ` (sign in with /?token=<token from ${token.source === 'config' ? 'http.token' : token.file}>)`;
    return { url, webchatUrl: webchat ? `${url}${signIn}` : undefined };
  }

  async function stop() {
    // Order matters: refuse new messages, let turns end, then close transports and storage.
    stopping.abort();
    channels?.endRetries();
    await signals?.scheduler.stop();
    // Sub-agent runs that end during the drain record their end before the store closes.
    const subagentsClosed = subagents?.close();
    await restartNote;
    await router?.close(config.gateway.drainTimeoutMs);
    await subagentsClosed;
    // Wake turns the drain ended clear their signals (or keep them for the next start) before the store closes.
    await signals?.settled();
    await toolpackRuntime?.stop();
    await channels?.stop();
    await http?.close();
    // Messages that arrived during the drain are being stored: the store waits for them.
    await router?.seal();
    await store?.close();
    router = undefined;
    http = undefined;
    store = undefined;
  }

  return {
    start,
    stop,
    wakeRestartNotes: () => restartNotes?.wake(),
    get toolpackProblems() {
      return toolpackProblems;
    },
  };
}
