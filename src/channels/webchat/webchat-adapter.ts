import { randomUUID } from 'node:crypto';
import { SwitchboardError } from '../../errors/index.js';
import type { Logger } from '../../logging/index.js';
import type {
  DeliveryRoute,
  DispatchResult,
  InboundHandler,
  OutboundDelta,
  OutboundMessage,
} from '../../messages/index.js';
import type { ChannelAdapter } from '../types.js';

const MAX_HELD_NOTICES = 20;

/** What a web chat page receives on its event stream. */
export type WebchatEvent =
  | { type: 'reply'; id: string; text: string; thread?: string }
  | { type: 'reply.delta'; id: string; delta: string; thread?: string }
  | { type: 'closing' };

export interface WebchatInput {
  text: string;
  /** The user name; the sender id is `webchat:<user>`. */
  user: string;
  thread?: string | undefined;
}

export interface WebchatAdapter extends ChannelAdapter {
  /** Takes a message from the web chat API; resolves when its turn has ended. */
  receive(input: WebchatInput): Promise<DispatchResult>;
  /** Streams what is sent to `user`'s chats (every thread) until the returned function is called. */
  subscribe(user: string, listener: (event: WebchatEvent) => void): () => void;
}

/**
 * The built-in web chat as a channel. Its transport is the HTTP API: messages arrive through
 * `receive` and leave through subscriptions that the HTTP layer turns into event streams.
 * Direct chats only: the chat id is the user name.
 */
export function createWebchatAdapter(options: { logger: Logger }): WebchatAdapter {
  const { logger } = options;
  const listeners = new Map<string, Set<(event: WebchatEvent) => void>>();
  /** Notices sent while their user had no page open, delivered when one subscribes. */
  const held = new Map<string, WebchatEvent[]>();
  let onInbound: InboundHandler | undefined;

  const publish = (user: string, event: WebchatEvent) => {
    for (const listener of listeners.get(user) ?? []) listener(event);
  };
  const threadOf = (route: DeliveryRoute) => (route.threadId === undefined ? {} : { thread: route.threadId });

  return {
    name: 'webchat',
    async start(handler) {
      onInbound = handler;
    },
    async stop() {
      onInbound = undefined;
      for (const set of listeners.values()) for (const listener of set) listener({ type: 'closing' });
      listeners.clear();
    },
    async send(route: DeliveryRoute, message: OutboundMessage) {
      const event: WebchatEvent = { type: 'reply', id: message.id, text: message.text, ...threadOf(route) };
      if (message.notice && !listeners.has(route.chatId)) {
        const queue = held.get(route.chatId) ?? [];
        queue.push(event);
        held.set(route.chatId, queue.slice(-MAX_HELD_NOTICES));
        return;
      }
      publish(route.chatId, event);
    },
    sendDelta(route: DeliveryRoute, delta: OutboundDelta) {
      publish(route.chatId, { type: 'reply.delta', id: delta.id, delta: delta.delta, ...threadOf(route) });
    },
    receive(input) {
      if (!onInbound)
        return Promise.reject(new SwitchboardError('GATEWAY_STATE', 'web chat is not accepting messages'));
      return onInbound({
        channel: 'webchat',
        chatType: 'direct',
        chatId: input.user,
        ...(input.thread === undefined ? {} : { threadId: input.thread }),
        senderId: `webchat:${input.user}`,
        text: input.text,
        messageId: randomUUID(),
      });
    },
    subscribe(user, listener) {
      let set = listeners.get(user);
      if (!set) {
        set = new Set();
        listeners.set(user, set);
      }
      set.add(listener);
      logger.debug({ user, listeners: set.size }, 'event stream opened');
      for (const event of held.get(user) ?? []) listener(event);
      held.delete(user);
      return () => {
        logger.debug({ user }, 'event stream closed');
        const current = listeners.get(user);
        current?.delete(listener);
        if (current?.size === 0) listeners.delete(user);
      };
    },
  };
}
