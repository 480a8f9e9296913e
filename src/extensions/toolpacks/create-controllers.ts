import type { Config } from '../../base/config/index.js';
import { SwitchboardError } from '../../base/errors/index.js';
import type { Logger } from '../../base/logging/index.js';
import {
  type AgentMessage,
  communicationPolicy,
  type SendOutcome,
  USER_RECIPIENT,
} from '../../base/messages/index.js';
import type { Store } from '../../records/store/index.js';
import {
  type ControllerHost,
  type ControllerSignalRequest,
  createControllerHost,
  createMessageSender,
  createOutbox,
  createProjectStore,
  createStoreDb,
  type DeliveryOutcome,
  type DeliveryRetry,
  type MessageSender,
  outboxFile,
  type ProjectAgent,
  type ProjectMessage,
  type StoreDbSources,
} from './controller/index.js';
import type { LoadToolpacksResult } from './load-toolpacks.js';
import { scanUnprovidedApis } from './unprovided-apis.js';

/** What the toolpacks need of signal delivery (the gateway hands it over; it is built first). */
export interface ToolpackSignals {
  /**
   * A signal a runner, controller or WebUI handler recorded; delivery checks its shape. `agentId`:
   * the agent whose tool call (a runner's activation) recorded it (a useful effect of its wake turn).
   */
  record(signal: unknown, source: string, agentId?: string): Promise<void>;
  /**
   * `store.sendMessage` of a controller. A message to an agent whose id a pending signal already
   * carries is not queued again (an outbox replay).
   */
  send(message: AgentMessage): Promise<SendOutcome>;
  /** The agent roster (`store.listAgents`). */
  agents(): readonly ProjectAgent[];
  /** `store.hasPendingSignalsForAgent`; without it, false. */
  hasPendingSignalsForAgent?(agentId: string): boolean;
  /**
   * Why delivery would refuse this signal (no kind, a bad priority, an unknown target), checked
   * synchronously so a controller's `recordSignal` throws it, as Suzumio's does; undefined when fine.
   */
  refusal?(signal: unknown): string | undefined;
  /** Loads what `hasPendingSignalsForAgent` reads (run at start, before any controller runs). */
  loadPending?(): Promise<void>;
  /** The records `store.db` shows (signals, messages, wake turns), read at each query; without it, an empty `signals`. */
  storeDb?: Omit<StoreDbSources, 'project'>;
  /** Reports the message ids a wake turn carries once it has started (receipts: `delivered`). */
  onMessagesWoken?(listener: (messageIds: readonly string[], at: Date) => void): () => void;
}

export interface ControllersOptions {
  config: Config;
  /** Absolute. */
  stateDir: string;
  loaded: LoadToolpacksResult;
  store: Store;
  signals: ToolpackSignals;
  /** How a refused message is retried; default `DEFAULT_DELIVERY_RETRY` (3 attempts, 1 s, 2 s). */
  messageRetry?: DeliveryRetry | undefined;
  logger: Logger;
}

/** Per toolpack: its controller host, and the sender that delivers its messages with receipts. */
export interface Controllers {
  controllers: Map<string, ControllerHost>;
  senders: Map<string, { sender: MessageSender; open(): ProjectMessage[] }>;
  /** Suzumio-internal APIs each controller reached for that Switchboard does not provide (`store.db`). */
  notProvided: Map<string, Set<string>>;
  /** Stops listening for wake turns and clears the retry timers. */
  stop(): void;
}

export function createControllers(options: ControllersOptions): Controllers {
  const { config, signals, logger } = options;
  const recordSignal = (request: ControllerSignalRequest) => {
    const refused = signals.refusal?.(request.signal);
    if (refused !== undefined) throw new SwitchboardError('TOOLPACK_REFUSED', `recordSignal: ${refused}`);
    void signals.record(request.signal, `toolpack:${request.toolpackId}`);
  };
  const policy = communicationPolicy(config);
  const controllers = new Map<string, ControllerHost>();
  const senders: Controllers['senders'] = new Map();
  const notProvided = new Map<string, Set<string>>();
  // One read-only view for every toolpack: the records are the gateway's, not a toolpack's.
  const db = createStoreDb({
    project: config.project.id,
    signals: () => [],
    ...signals.storeDb,
  });
  for (const toolpack of options.loaded.toolpacks) {
    const toolpackLogger = logger.child({ toolpack: toolpack.id });
    const outbox = createOutbox({ file: outboxFile(options.stateDir, toolpack.id), logger: toolpackLogger });
    const sender = createMessageSender({
      toolpackId: toolpack.id,
      deliver: (message) => deliverMessage(signals, message),
      outbox,
      retry: options.messageRetry,
      logger: toolpackLogger,
    });
    senders.set(toolpack.id, { sender, open: () => outbox.open() });
    const missing = new Set<string>();
    notProvided.set(toolpack.id, missing);
    for (const api of scanUnprovidedApis(toolpack.directory))
      reportUnprovided(toolpackLogger, toolpack.id, missing, api, 'names');
    const store = createProjectStore({
      toolpackId: toolpack.id,
      stateDir: options.stateDir,
      routeNames: Object.keys(config.routes),
      coordinatorAgent: policy.coordinator,
      configView: configView(config),
      project: config.project.id,
      timezone: config.scheduler.timezone,
      listAgents: () => signals.agents(),
      hasPendingSignalsForAgent: (agentId) => signals.hasPendingSignalsForAgent?.(agentId) ?? false,
      projectStats: () => ({
        ...suzumioCounters(signals.storeDb),
        agents: Object.keys(config.agents).length,
        toolpacks: options.loaded.toolpacks.length,
      }),
      sender,
      outbox,
      db,
      onUnprovided: (api) => reportUnprovided(toolpackLogger, toolpack.id, missing, api, 'read'),
      store: options.store,
      logger: toolpackLogger,
    });
    controllers.set(
      toolpack.id,
      createControllerHost({
        toolpack,
        store,
        logger: logger.child({ controller: toolpack.id }),
        recordSignal,
      }),
    );
  }
  const unsubscribe = signals.onMessagesWoken?.((ids, at) => {
    for (const { sender } of senders.values()) sender.woken(ids, at);
  });
  return {
    controllers,
    senders,
    notProvided,
    stop() {
      unsubscribe?.();
      for (const { sender } of senders.values()) sender.stop();
    },
  };
}

/** `config()` beyond channels and the coordinator: Suzumio's keys, nothing secret (no models, prompts or paths). */
function configView(config: Config) {
  const policy = communicationPolicy(config);
  return {
    name: config.project.id,
    agents: Object.entries(config.agents).map(([id, agent]) => ({
      id,
      displayName: agent.displayName ?? id,
      tools: [...(agent.tools ?? [])],
    })),
    tools: {
      toolpacks: config.tools.toolpacks.map((entry) =>
        typeof entry === 'string' ? entry : { id: entry.id },
      ),
    },
    communication: {
      restrictNonCoordinatorToCoordinator: policy.restricted,
      nonCoordinatorMaxPriority: policy.maxPriority,
      pmRoutineVerifierPriority: policy.routinePriority,
    },
  };
}

/**
 * Suzumio's `projectStats()` counters over what Switchboard keeps (the message log and the wake-turn
 * log of this process); `toolCallCount`, `historyMessageCount`, `historyCompactionCount` and
 * `eventCount` have no such records here and are left out (docs/toolpack-store.md).
 */
function suzumioCounters(records: ToolpackSignals['storeDb']) {
  const activations = records?.activations?.() ?? [];
  return {
    messageCount: records?.messages?.().length ?? 0,
    activationCount: activations.length,
    failedActivationCount: activations.filter((activation) => activation.status === 'failed').length,
    runningActivationCount: activations.filter((activation) => activation.status === 'running').length,
  };
}

/**
 * Logged once per toolpack and API, at load when its code names it, else when the controller
 * first reads it; the report (`GET /api/toolpacks`) lists it from then on.
 */
function reportUnprovided(
  logger: Logger,
  toolpackId: string,
  missing: Set<string>,
  api: string,
  how: 'names' | 'read',
): void {
  if (missing.has(api)) return;
  missing.add(api);
  logger.warn(
    { toolpack: toolpackId, api },
    `the ${toolpackId} toolpack ${how} ${api}, a Suzumio-internal API Switchboard does not provide (it is undefined); see docs/toolpack-store.md for the store a toolpack may use`,
  );
}

/** A post (a route, `user`) is delivered when it resolves; a message to an agent is queued. */
async function deliverMessage(signals: ToolpackSignals, message: ProjectMessage): Promise<DeliveryOutcome> {
  const sent = await signals.send(message);
  if (!sent.ok) throw new SwitchboardError('TOOLPACK_REFUSED', sent.reason);
  return message.channel !== undefined || message.recipient === USER_RECIPIENT ? 'posted' : 'queued';
}

/**
 * Each open message delivered again (one at a time, oldest first; a refused one is retried in
 * the background), after loading the pending signals. Run once at start, before the scheduler ticks.
 */
export async function replayOutboxes(
  parts: Controllers,
  signals: ToolpackSignals,
  logger: Logger,
): Promise<void> {
  await signals.loadPending?.();
  for (const [toolpackId, { sender, open }] of parts.senders) {
    const messages = open();
    if (messages.length === 0) continue;
    logger.info(
      { toolpack: toolpackId, messages: messages.length },
      'toolpack messages replayed from the outbox',
    );
    for (const message of messages) await sender.resume(message);
  }
}
