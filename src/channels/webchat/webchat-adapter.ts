import { SwitchboardError } from '../../errors/index.js';
import type { Logger } from '../../logging/index.js';
import type {
  DeliveryRoute,
  DispatchResult,
  InboundHandler,
  InboundMessage,
  OutboundDelta,
  OutboundMessage,
  ReplyAction,
} from '../../messages/index.js';
import type { ChannelAdapter } from '../types.js';
import { inboundOfClick, inboundOfInput, type WebchatClick, type WebchatInput } from './webchat-inbound.js';

const MAX_HELD_NOTICES = 20;

/** What a web chat page receives on its event stream. */
export type WebchatEvent =
  | { type: 'reply'; id: string; text: string; thread?: string; actions?: ReplyAction[] }
  | { type: 'reply.delta'; id: string; delta: string; thread?: string }
  /** A button of reply `id` was clicked and answered: `text` replaces its buttons. */
  | { type: 'reply.decided'; id: string; text: string; thread?: string }
  | { type: 'closing' };

export interface WebchatAdapter extends ChannelAdapter {
  /** Takes a message from the web chat API; resolves when its turn has ended. */
  receive(input: WebchatInput): Promise<DispatchResult>;
  /**
   * Takes a button click from the web chat API and dispatches it like a message (with `action`);
   * resolves with the router's answer, whose first reply's text then replaces the clicked reply's
   * buttons on every page of the user (`reply.decided`).
   */
  receiveClick(click: WebchatClick): Promise<DispatchResult>;
  /** Streams what is sent to `user`'s chats (every thread) until the returned function is called. */
  subscribe(user: string, listener: (event: WebchatEvent) => void): () => void;
}

/**
 * The built-in web chat as a channel. Its transport is the HTTP API: messages and clicks arrive
 * through `receive` and `receiveClick` and leave through subscriptions that the HTTP layer turns
 * into event streams. Direct chats only: the chat id is the user name.
 */
export function createWebchatAdapter(options: { logger: Logger }): WebchatAdapter {
  const { logger } = options;
  const listeners = new Map<string, Set<(event: WebchatEvent) => void>>();
  /** Notices and replies with buttons sent while their user had no page open, delivered when one subscribes. */
  const held = new Map<string, WebchatEvent[]>();
  let onInbound: InboundHandler | undefined;

  const publish = (user: string, event: WebchatEvent) => {
    for (const listener of listeners.get(user) ?? []) listener(event);
  };
  const threadOf = (thread: string | undefined) => (thread === undefined ? {} : { thread });
  const dispatch = (message: InboundMessage) => {
    if (!onInbound)
      return Promise.reject(new SwitchboardError('GATEWAY_STATE', 'web chat is not accepting messages'));
    return onInbound(message);
  };

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
      const event = replyEvent(message, threadOf(route.threadId));
      // A reply with buttons waits for its user like a notice: an approval posted to a user with no
      // page open would otherwise be lost.
      const keep = message.notice === true || (message.actions?.length ?? 0) > 0;
      if (keep && !listeners.has(route.chatId)) {
        const queue = held.get(route.chatId) ?? [];
        queue.push(event);
        held.set(route.chatId, queue.slice(-MAX_HELD_NOTICES));
        return;
      }
      publish(route.chatId, event);
    },
    sendDelta(route: DeliveryRoute, delta: OutboundDelta) {
      publish(route.chatId, {
        type: 'reply.delta',
        id: delta.id,
        delta: delta.delta,
        ...threadOf(route.threadId),
      });
    },
    receive: (input) => dispatch(inboundOfInput(input)),
    async receiveClick(click) {
      const result = await dispatch(inboundOfClick(click));
      const answer = result.replies[0];
      const text = answer?.text;
      // An answer with buttons (a click that did not count) is for the clicker: the request stays open.
      const decided = (answer?.actions?.length ?? 0) === 0;
      if (click.reply !== undefined && text && decided)
        publish(click.user, { type: 'reply.decided', id: click.reply, text, ...threadOf(click.thread) });
      return result;
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

function replyEvent(message: OutboundMessage, thread: { thread?: string }): WebchatEvent {
  const actions = message.actions?.map(({ label, value, style }) => ({
    label,
    value,
    ...(style ? { style } : {}),
  }));
  return {
    type: 'reply',
    id: message.id,
    text: message.text,
    ...thread,
    ...(actions?.length ? { actions } : {}),
  };
}
