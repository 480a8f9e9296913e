import type { OutboundMessage } from '../channels/index.js';
import type { Config } from '../config/index.js';
import type { Logger } from '../logging/index.js';
import type { Router } from '../routing/index.js';
import type { DeliveryRoute } from '../sessions/index.js';
import {
  createScheduler,
  createSignalQueue,
  parseRoute,
  type Signal,
  type SignalInput,
} from '../signals/index.js';
import type { Store } from '../store/index.js';
import type { ControllerHost, CoreMessage } from '../toolpacks/index.js';

/** A message between agents, or from an agent to a chat route (`messages.send`, `store.sendMessage`). */
export type OutgoingMessage = CoreMessage;

export const mainSessionKey = (agentId: string) => `agent:${agentId}:main`;

/**
 * Signals and messages: the queue, the scheduler tick, and delivery. A signal for an agent wakes
 * it with a turn in its main session (`agent:<id>:main`, a session no chat reads) when that
 * session is idle; one for a route is posted there. A message to an agent is a `message` signal
 * (merged with others pending, like any signal); to a route, a post.
 */
export function buildSignals(options: {
  config: Config;
  store: Store;
  router: () => Router;
  deliver(route: DeliveryRoute, message: OutboundMessage): Promise<void>;
  controllers: ReadonlyMap<string, ControllerHost>;
  logger: Logger;
}) {
  const { config, logger } = options;
  const queue = createSignalQueue({ store: options.store, logger });

  async function post(routeName: string, text: string): Promise<void> {
    const target = config.routes[routeName];
    const route = target === undefined ? undefined : parseRoute(target);
    if (!route)
      throw new Error(
        `unknown route ${routeName} (routes: ${Object.keys(config.routes).join(', ') || 'none'})`,
      );
    await options.deliver(route, { id: crypto.randomUUID(), text, notice: true });
  }

  async function record(input: SignalInput, source: string): Promise<void> {
    if (input?.targetChannel) {
      await post(input.targetChannel, `${input.kind}: ${JSON.stringify(input.payload ?? {})}`).catch(
        (error: unknown) => logger.warn({ err: error, kind: input.kind }, 'signal for a route not posted'),
      );
      return;
    }
    const recorded = await queue.record(input, source);
    if (!recorded.ok) logger.warn({ source, reason: recorded.reason }, 'signal refused');
  }

  async function wake(agentId: string, signals: Signal[]): Promise<void> {
    const text = `Signals (from the runtime, not a user): ${JSON.stringify(
      signals.map(({ kind, priority, payload, source, merged }) => ({
        kind,
        priority,
        payload,
        source,
        merged,
      })),
    )}`;
    const { done } = await options.router().startTurn({
      sessionKey: mainSessionKey(agentId),
      agentId,
      route: { channel: 'internal', chatType: 'direct', chatId: mainSessionKey(agentId) },
      entry: { role: 'system', text },
      senderId: 'system:signals',
    });
    void done.catch((error: unknown) => logger.warn({ err: error, agent: agentId }, 'signal turn failed'));
  }

  const agents = () =>
    Object.entries(config.agents).map(([id, agent]) => {
      const busy = options.router().sessionStatus(mainSessionKey(id)) !== 'idle';
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
    scheduler,
    agents,
    record,
    /** Sends a message: a `message` signal for an agent, a post for a route. */
    async send(message: OutgoingMessage): Promise<void> {
      if (message.channel) {
        await post(message.channel, `${message.sender}: ${message.body}`);
        return;
      }
      await record(
        {
          kind: 'message',
          targetAgent: message.recipient ?? config.communication.coordinatorAgent ?? config.defaultAgent,
          priority: message.priority,
          payload: { id: message.id, sender: message.sender, body: message.body },
        },
        `message:${message.sender}`,
      );
    },
  };
}

export type Signals = ReturnType<typeof buildSignals>;
