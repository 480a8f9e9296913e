import pTimeout from 'p-timeout';
import type { Config } from '../config/index.js';
import { errorText } from '../errors/index.js';
import type { Logger } from '../logging/index.js';
import type { DeliveryRoute, DispatchResult, OutboundMessage } from '../messages/index.js';
import type { Router } from '../routing/index.js';
import { mainSessionKey, type SessionStore } from '../sessions/index.js';
import {
  createScheduler,
  createSignalQueue,
  parseRoute,
  type Signal,
  type SignalInput,
} from '../signals/index.js';
import type { Store } from '../store/index.js';
import {
  type ControllerHost,
  type CoreMessage,
  type CoreSendResult,
  notAnAgent,
  USER_RECIPIENT,
} from '../toolpacks/index.js';
import { createUserPoster } from './user-poster.js';

/** A message between agents, or from an agent to a chat route (`messages.send`, `store.sendMessage`). */
export type OutgoingMessage = CoreMessage;

/** How long past the drain a stop waits for wake turns to end (a turn may ignore its abort). */
const SETTLE_GRACE_MS = 5000;

/**
 * Signals and messages: the queue, the scheduler tick, and delivery. A signal for an agent wakes
 * it with a turn in its main session (`agent:<id>:main`, a session no chat reads) when that
 * session is idle; one for a route is posted there. A message to an agent is a `message` signal
 * (merged with others of its priority pending, like any signal); to a route, a post. A message or
 * signal for `user` is posted where the human talks to the coordinator agent (see user-poster.ts);
 * one for any other name that is not an agent is refused, naming it.
 */
export function buildSignals(options: {
  config: Config;
  store: Store;
  sessions: SessionStore;
  router: () => Router;
  deliver(route: DeliveryRoute, message: OutboundMessage): Promise<void>;
  controllers: ReadonlyMap<string, ControllerHost>;
  logger: Logger;
}) {
  const { config, logger } = options;
  const agentIds = Object.keys(config.agents);
  const queue = createSignalQueue({ store: options.store, logger, agents: agentIds });
  const coordinator = config.communication.coordinatorAgent ?? config.defaultAgent;
  /** The bookkeeping of each wake turn under way (it resolves once its signals are settled). */
  const answering = new Set<Promise<void>>();
  let stopping = false;

  async function post(routeName: string, text: string): Promise<void> {
    const target = config.routes[routeName];
    const route = target === undefined ? undefined : parseRoute(target);
    if (!route)
      throw new Error(
        `unknown route ${routeName} (routes: ${Object.keys(config.routes).join(', ') || 'none'})`,
      );
    await options.deliver(route, { id: crypto.randomUUID(), text, notice: true });
  }

  const postToUser = createUserPoster({ config, sessions: options.sessions, deliver: options.deliver });

  async function record(input: SignalInput, source: string): Promise<void> {
    const target =
      input?.targetChannel ?? (input?.targetAgent === USER_RECIPIENT ? USER_RECIPIENT : undefined);
    if (target !== undefined) {
      const text = `${input.kind}: ${JSON.stringify(input.payload ?? {})}`;
      const posted: Promise<CoreSendResult> =
        target === USER_RECIPIENT ? postToUser(text) : post(target, text).then(() => ({ ok: true }));
      const result = await posted.catch(
        (error: unknown): CoreSendResult => ({ ok: false, reason: errorText(error) }),
      );
      if (!result.ok)
        logger.warn({ kind: input.kind, reason: result.reason }, 'signal for a chat not posted');
      return;
    }
    const recorded = await queue.record(input, source);
    if (!recorded.ok) logger.warn({ source, reason: recorded.reason }, 'signal refused');
  }

  async function wake(agentId: string, signals: Signal[]): Promise<void> {
    const text = `Signals (from the runtime, not a user): ${JSON.stringify(
      signals.map(({ kind, priority, payload, payloads, source, merged }) => ({
        kind,
        priority,
        ...(payloads ? { payloads } : { payload }),
        source,
        merged,
      })),
    )}`;
    let started: { done: Promise<DispatchResult> };
    try {
      started = await options.router().startTurn({
        sessionKey: mainSessionKey(agentId),
        agentId,
        route: { channel: 'internal', chatType: 'direct', chatId: mainSessionKey(agentId) },
        entry: { role: 'system', text },
        senderId: 'system:signals',
      });
    } catch (error) {
      await queue.restore(signals);
      throw error;
    }
    settleWhenAnswered(agentId, signals, started.done);
  }

  /**
   * The signals are forgotten once the turn they woke has ended, unless the stop aborted it or
   * dropped it from the queue: then they stay stored and the next start delivers them again.
   */
  function settleWhenAnswered(agentId: string, signals: Signal[], done: Promise<DispatchResult>): void {
    const settled = done
      .then(
        async (result) => {
          if (stopping && result.status === 'interrupted') return;
          await queue.acknowledge(signals);
        },
        (error: unknown) =>
          logger.warn({ err: error, agent: agentId }, 'signal turn not run; its signals stay pending'),
      )
      .catch((error: unknown) => logger.warn({ err: error, agent: agentId }, 'answered signals not cleared'));
    answering.add(settled);
    void settled.finally(() => answering.delete(settled));
  }

  const agents = () =>
    Object.entries(config.agents).map(([id, agent]) => {
      // Busy while any of its sessions has a turn, not only its main session.
      const busy = options.router().agentBusy(id);
      return {
        id,
        displayName: agent.displayName ?? id,
        role: 'agent',
        status: busy ? ('running' as const) : ('idle' as const),
        activeActivationId: null,
        updatedAt: new Date().toISOString(),
        modelAlive: busy,
      };
    });

  const hooks = [...options.controllers.entries()].map(([toolpackId, controller]) => ({
    toolpackId,
    async run(context: Record<string, unknown>) {
      const hook = await controller.schedulerHook();
      return hook ? hook(context) : undefined;
    },
  }));

  const scheduler = createScheduler({
    tickMs: config.scheduler.tickMs,
    project: config.project.id,
    queue,
    agents,
    wake,
    hooks,
    record,
    logger,
  });

  return {
    queue,
    /** The tick; `stop` also marks the gateway as stopping, so wake turns it aborts keep their signals. */
    scheduler: {
      ...scheduler,
      async stop(): Promise<void> {
        stopping = true;
        await scheduler.stop();
      },
    },
    /**
     * Resolves once every wake turn under way has ended and its signals are settled, or after the
     * drain and a grace (a turn that ignores the stop must not hold it): await it after the
     * router has closed and before the store closes.
     */
    async settled(): Promise<void> {
      const deadline = Date.now() + config.gateway.drainTimeoutMs + SETTLE_GRACE_MS;
      while (answering.size > 0 && Date.now() < deadline) {
        const milliseconds = Math.max(0, deadline - Date.now());
        await pTimeout(Promise.all([...answering]), { milliseconds, fallback: () => undefined });
      }
    },
    agents,
    record,
    /**
     * Sends a message: a `message` signal for an agent, a post for a route or for `user`. A
     * recipient that is neither an agent nor `user` is refused.
     */
    async send(message: OutgoingMessage): Promise<CoreSendResult> {
      if (message.channel) {
        await post(message.channel, `${message.sender}: ${message.body}`);
        return { ok: true };
      }
      const recipient = message.recipient ?? coordinator;
      if (recipient === USER_RECIPIENT) return postToUser(`${message.sender}: ${message.body}`);
      if (!agentIds.includes(recipient)) return { ok: false, reason: notAnAgent(recipient, agentIds) };
      await record(
        {
          kind: 'message',
          targetAgent: recipient,
          priority: message.priority,
          payload: { id: message.id, sender: message.sender, body: message.body },
        },
        `message:${message.sender}`,
      );
      return { ok: true };
    },
  };
}

export type Signals = ReturnType<typeof buildSignals>;
