import type { AgentConfig, Config } from '../config/index.js';
import { SwitchboardError } from '../errors/index.js';
import type { Logger } from '../logging/index.js';
import type {
  DeliveryRoute,
  DispatchOptions,
  DispatchResult,
  InboundMessage,
  OutboundMessage,
} from '../messages/index.js';
import type { SessionStore } from '../sessions/index.js';
import type { Inbox, InboxItem } from './inbox.js';
import type { SessionQueues } from './session-queues.js';

/** Starts that may die while answering one message before it is given up (a message that crashes the gateway). */
const MAX_ATTEMPTS = 3;
/** How far back a resumed message's entry is looked for in its transcript. */
const RECENT_ENTRIES = 200;

export interface IntakeOptions {
  config: Config;
  sessions: SessionStore;
  inbox: Inbox;
  queues: SessionQueues;
  scrub(text: string): string;
  deliver(route: DeliveryRoute, message: OutboundMessage): Promise<void>;
  logger: Logger;
}

/**
 * How a user message becomes a turn: stored in the inbox first (durable), then queued in its
 * session's queue; while the gateway closes, only stored (answered after the next start, and the
 * chat is told). `resume` queues what the last process left; `seal` waits for the writes in flight.
 */
export function createIntake(options: IntakeOptions) {
  const { config, inbox, queues, logger } = options;
  const owners = new Set(config.owners);
  let closing = false;
  let sealed = false;
  /** Messages being stored: the store must not close under them. */
  const accepting = new Set<Promise<unknown>>();

  /** Queues an inbox item for its turn (a message just accepted, or one left by the last process). */
  function queue(item: InboxItem, agent: AgentConfig): Promise<DispatchResult> {
    const senderId = item.entry.senderId ?? '';
    return queues.enqueue(
      { sessionKey: item.sessionKey, agentId: item.agentId, agent, route: item.route, depth: 0 },
      {
        entry: item.entry,
        ...(item.stored ? { stored: item.stored } : {}),
        senderId,
        isOwner: owners.has(senderId),
        origin: 'user',
        inbox: item,
      },
    );
  }

  /** A redelivered message the inbox or the session's recent transcript already holds. */
  async function alreadyKept(sessionKey: string, messageId: string): Promise<boolean> {
    const waiting = await inbox.list();
    if (waiting.some((item) => item.sessionKey === sessionKey && item.entry.messageId === messageId))
      return true;
    const tail = await options.sessions.transcript(sessionKey, { last: RECENT_ENTRIES });
    return tail.some((entry) => entry.role === 'user' && entry.messageId === messageId);
  }

  async function store(
    message: InboundMessage,
    sessionKey: string,
    agentId: string,
    { accepted, redelivery }: DispatchOptions,
  ): Promise<DispatchResult> {
    const agent = config.agents[agentId];
    // Validation guarantees that bindings and defaultAgent name configured agents.
    if (!agent) throw new SwitchboardError('GATEWAY_STATE', `agent "${agentId}" is not configured`);
    const route = routeOf(message);
    if (redelivery && (await alreadyKept(sessionKey, message.messageId))) {
      logger.info({ session: sessionKey, messageId: message.messageId }, 'redelivered message already kept');
      accepted?.();
      return { sessionKey, replies: [] };
    }
    await options.sessions.ensure(sessionKey, { agentId, route });
    // Durable before anything else: a message the platform saw acknowledged is answered, whatever comes.
    const item = await inbox.add({
      sessionKey,
      agentId,
      route,
      entry: {
        role: 'user',
        text: options.scrub(message.text),
        senderId: message.senderId,
        messageId: message.messageId,
      },
    });
    accepted?.();
    if (!closing) return queue(item, agent);
    const notice = await queues.tellKept({ sessionKey, route });
    const kept: DispatchResult = { sessionKey, replies: [notice], status: 'interrupted' };
    return kept;
  }

  /**
   * The process may have died between writing the entry to the transcript and noting that on the
   * inbox item: the entry is found by its platform message id, so it is not written twice.
   */
  async function writtenEntry(item: InboxItem) {
    const tail = await options.sessions.transcript(item.sessionKey, { last: RECENT_ENTRIES });
    return tail.find((entry) => entry.role === 'user' && entry.messageId === item.entry.messageId);
  }

  /** A message left by the last process: queued again, or given up after MAX_ATTEMPTS starts died answering it. */
  async function requeue(item: InboxItem): Promise<void> {
    const agent = config.agents[item.agentId];
    if (agent && item.attempts < MAX_ATTEMPTS) {
      const written = item.stored ?? (await writtenEntry(item));
      void queue(written ? { ...item, stored: written } : item, agent).catch((error: unknown) =>
        logger.warn({ err: error, session: item.sessionKey }, 'resumed message not answered'),
      );
      return;
    }
    logger.error(
      { session: item.sessionKey, attempts: item.attempts, agent: item.agentId },
      agent
        ? 'message given up: the gateway stopped every time it answered it'
        : 'message for an agent no longer configured dropped',
    );
    await inbox.remove(item.id);
    const text = agent
      ? `I could not answer your message: the gateway stopped each of the ${item.attempts} times it tried.`
      : `Your message was not answered: agent "${item.agentId}" is no longer configured.`;
    await options.deliver(item.route, { id: crypto.randomUUID(), text }).catch(() => {});
  }

  return {
    /** Stores and queues `message`; `accepted` is called once it is durable, the promise resolves when its turn ends. */
    accept(
      message: InboundMessage,
      sessionKey: string,
      agentId: string,
      dispatchOptions: DispatchOptions = {},
    ): Promise<DispatchResult> {
      if (sealed)
        throw new SwitchboardError(
          'GATEWAY_STATE',
          'the gateway is stopping; send the message again shortly',
        );
      const stored = store(message, sessionKey, agentId, dispatchOptions);
      accepting.add(stored);
      void stored.catch(() => {}).finally(() => accepting.delete(stored));
      return stored;
    },
    async resume(): Promise<number> {
      const items = await inbox.list();
      for (const item of items) await requeue(item);
      if (items.length > 0)
        logger.info({ messages: items.length }, 'answering messages kept by the last stop');
      return items.length;
    },
    /** From now on messages are stored and kept for the next start. */
    close(): void {
      closing = true;
    },
    async seal(): Promise<void> {
      sealed = true;
      await Promise.allSettled([...accepting]);
    },
  };
}

export function routeOf(message: InboundMessage): DeliveryRoute {
  return {
    channel: message.channel,
    chatType: message.chatType,
    chatId: message.chatId,
    ...(message.threadId === undefined ? {} : { threadId: message.threadId }),
  };
}
