import type { Config } from '../../base/config/index.js';
import { errorText } from '../../base/errors/index.js';
import type { Logger } from '../../base/logging/index.js';
import {
  type AgentMessage,
  communicationPolicy,
  notAnAgent,
  type OutboundFor,
  type SendOutcome,
  USER_RECIPIENT,
} from '../../base/messages/index.js';
import type { SessionStore } from '../../records/sessions/index.js';
import type { Store } from '../../records/store/index.js';
import { createActivationLog } from './activation-log.js';
import type { AgentActivity } from './agent-activity.js';
import type { SignalTurns } from './ports.js';
import { createPoster, type Poster } from './posts.js';
import { createScheduler, type ScheduledHook, type Scheduler, type SchedulerAgent } from './scheduler.js';
import { createSignalQueue, type SignalQueue, signalRefusal } from './signal-queue.js';
import { createSupervision } from './supervision.js';
import { MESSAGE_SIGNAL_KIND, type SignalInput } from './types.js';
import { createWaker } from './wake.js';
import { createWokenMessages } from './woken-messages.js';

export interface SignalDeliveryOptions {
  config: Config;
  store: Store;
  sessions: SessionStore;
  /** The router's turns; reached only once a signal is delivered or the roster is read. */
  turns: SignalTurns;
  /** Where posts go (each route's `Outbound`); an `internal` route is recorded, never sent. */
  outboundFor: OutboundFor;
  logger: Logger;
}

/**
 * Signal delivery: the queue, waking agents, posts, and the agent roster. A signal for an agent
 * wakes it with a turn in its main session when that session is idle (see wake.ts); one for a
 * route is posted there. A message to an agent is a `message.created` signal (merged with others of its
 * priority pending, like any signal); to a route, a post. A message or signal for `user` is
 * posted where the human talks to the coordinator agent (see posts.ts); one for any other name
 * that is not an agent is refused, naming it.
 */
export function createSignalDelivery(options: SignalDeliveryOptions) {
  const { config, logger } = options;
  const agentIds = Object.keys(config.agents);
  const queue = createSignalQueue({ store: options.store, logger, agents: agentIds });
  const poster = createPoster(options);
  const record = (input: SignalInput, source: string) => recordSignal(queue, poster, logger, input, source);
  const coordinator = communicationPolicy(config).coordinator;
  const supervision = createSupervision({
    config,
    store: options.store,
    queue,
    record,
    send: (message) => send(message),
    logger,
  });
  const woken = createWokenMessages(logger);
  const activations = createActivationLog();
  const waker = createWaker({
    queue,
    turns: options.turns,
    drainTimeoutMs: config.gateway.drainTimeoutMs,
    logger,
    observer: activations.wrap(woken.wrap(supervision.observer)),
  });
  const delivery = {
    queue,
    record,
    wake: waker.wake,
    settled: waker.settled,
    /** Marks the gateway as stopping: wake turns interrupted from now on keep their signals. */
    stop: waker.stop,
    /** The agent roster the scheduler and the toolpacks see. */
    agents: () => agentRoster(config, options.turns, supervision.activity),
    /** The agents' states, the nudges and the monitors (supervision.ts). */
    supervision,
    /** Whether signals wait for the agent, not yet taken by a wake turn (false until the queue is loaded). */
    hasPendingSignalsForAgent: (agentId: string) => queue.hasPending(agentId),
    /** Why `record` would refuse this signal, synchronously (a controller's `recordSignal` throws it). */
    refusal: (input: unknown) => signalRefusal(input as SignalInput, agentIds),
    /** The wake turns of this process (the newest 200), for `store.db`'s `activations`. */
    activations: activations.rows,
    /** Loads the pending signals, so `hasPendingSignalsForAgent` answers before the first tick. */
    loadPending: () => queue.load(),
    /** Tells a listener the message ids a wake turn carries once it has started (toolpack receipts). */
    onMessagesWoken: woken.listen,
    /**
     * Sends a message: a `message.created` signal for an agent (not again while a pending signal carries
     * its id), a post for a route or for `user`. A recipient that is neither an agent nor `user`
     * is refused.
     */
    send: (message: AgentMessage) => send(message),
  };
  async function send(message: AgentMessage): Promise<SendOutcome> {
    if (message.channel) {
      await poster.toRoute(message.channel, `${message.sender}: ${message.body}`);
      return { ok: true };
    }
    const recipient = message.recipient ?? coordinator;
    if (recipient === USER_RECIPIENT) return poster.toUser(`${message.sender}: ${message.body}`);
    if (!agentIds.includes(recipient)) return { ok: false, reason: notAnAgent(recipient, agentIds) };
    // Once per id: a toolpack's outbox replays a message the last process may have queued already.
    if (await queue.holdsMessage(message.id)) return { ok: true };
    const payload = { id: message.id, sender: message.sender, body: message.body };
    const input = { kind: MESSAGE_SIGNAL_KIND, targetAgent: recipient, priority: message.priority, payload };
    const recorded = await queue.record(input, `message:${message.sender}`, message.chargedTo);
    if (!recorded.ok) logger.warn({ sender: message.sender, reason: recorded.error }, 'signal refused');
    return { ok: true };
  }
  return delivery;
}

export type SignalDelivery = ReturnType<typeof createSignalDelivery>;

/** A signal for a route or `user` is posted; any other is queued. A refusal is logged, not thrown. */
async function recordSignal(
  queue: SignalQueue,
  poster: Poster,
  logger: Logger,
  input: SignalInput,
  source: string,
): Promise<void> {
  const target = input?.targetChannel ?? (input?.targetAgent === USER_RECIPIENT ? USER_RECIPIENT : undefined);
  if (target === undefined) {
    const recorded = await queue.record(input, source);
    if (!recorded.ok) logger.warn({ source, reason: recorded.error }, 'signal refused');
    return;
  }
  const text = `${input.kind}: ${JSON.stringify(input.payload ?? {})}`;
  const posted: Promise<SendOutcome> =
    target === USER_RECIPIENT
      ? poster.toUser(text)
      : poster.toRoute(target, text).then(() => ({ ok: true }) as const);
  const result = await posted.catch(
    (error: unknown): SendOutcome => ({ ok: false, reason: errorText(error) }),
  );
  if (!result.ok) logger.warn({ kind: input.kind, reason: result.reason }, 'signal for a chat not posted');
}

function agentRoster(config: Config, turns: SignalTurns, activity: AgentActivity): SchedulerAgent[] {
  return Object.entries(config.agents).map(([id, agent]) => {
    // Busy while any of its sessions has a turn, not only its main session.
    const busy = turns.agentBusy(id);
    const view = activity.observe(id, busy);
    const since = view?.since ?? new Date().toISOString();
    return {
      id,
      displayName: agent.displayName ?? id,
      role: 'agent',
      status: busy ? 'running' : 'idle',
      state: view?.state ?? (busy ? 'running' : 'quiet'),
      stateSince: since,
      ...(view?.error ? { lastError: view.error } : {}),
      activeActivationId: null,
      // Suzumio's `updatedAt` is when the agent's status last changed (its quiet-since).
      updatedAt: since,
      modelAlive: busy,
    };
  });
}

/** The scheduler tick over this delivery: pending signals to idle agents, then the toolpacks' hooks. */
export function scheduleSignals(
  signals: SignalDelivery,
  options: { config: Config; hooks: readonly ScheduledHook[]; logger: Logger },
): Scheduler {
  return createScheduler({
    tickMs: options.config.scheduler.tickMs,
    project: options.config.project.id,
    queue: signals.queue,
    agents: signals.agents,
    wake: signals.wake,
    hooks: options.hooks,
    record: signals.record,
    supervise: (agents) => signals.supervision.tick(agents),
    logger: options.logger,
  });
}
