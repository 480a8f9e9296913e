import { SwitchboardError } from '../../../base/errors/index.js';
import type { Logger } from '../../../base/logging/index.js';
import type {
  DeliveryRoute,
  DispatchResult,
  InboundHandler,
  InboundMessage,
  OutboundDelta,
  OutboundFile,
  OutboundMessage,
  ReplyAction,
} from '../../../base/messages/index.js';
import type { ChannelAdapter } from '../types.js';
import { createWebchatFileStore } from './webchat-files.js';
import { inboundOfClick, inboundOfInput, type WebchatClick, type WebchatInput } from './webchat-inbound.js';
import { createWebchatListeners } from './webchat-listeners.js';

/** What a web chat page receives on its event stream. */
export type WebchatEvent =
  | { type: 'reply'; id: string; text: string; thread?: string; actions?: ReplyAction[] }
  | { type: 'reply.delta'; id: string; delta: string; thread?: string }
  /** A button of reply `id` was clicked and answered: `text` replaces its buttons. */
  | { type: 'reply.decided'; id: string; text: string; thread?: string }
  /** A file sent to the chat (`chat.attach`): `url` downloads it (authenticated, like the API). */
  | { type: 'file'; id: string; name: string; size: number; url: string; comment?: string; thread?: string }
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
  /** The bytes of a file sent to a chat, by its link's id and name; undefined when unknown. */
  readFile(id: string, name: string): Promise<Uint8Array | undefined>;
}

/**
 * The built-in web chat as a channel. Its transport is the HTTP API: messages and clicks arrive
 * through `receive` and `receiveClick` and leave through subscriptions that the HTTP layer turns
 * into event streams. Direct chats only: the chat id is the user name.
 */
export function createWebchatAdapter(options: {
  logger: Logger;
  /** Where files sent to chats are kept for download; without it the web chat takes no files. */
  filesDir?: string;
}): WebchatAdapter {
  const { logger } = options;
  const files =
    options.filesDir === undefined ? undefined : createWebchatFileStore({ dir: options.filesDir });
  const streams = createWebchatListeners<WebchatEvent>(logger);
  const { publish, deliver } = streams;
  let onInbound: InboundHandler | undefined;
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
      streams.closeAll({ type: 'closing' });
    },
    async send(route: DeliveryRoute, message: OutboundMessage) {
      const event = replyEvent(message, threadOf(route.threadId));
      // A reply with buttons waits for its user like a notice: an approval posted to a user with no
      // page open would otherwise be lost.
      deliver(route.chatId, event, message.notice === true || (message.actions?.length ?? 0) > 0);
    },
    ...(files && {
      async sendFile(route: DeliveryRoute, file: OutboundFile) {
        const kept = await files.keep(file);
        const url = `/api/webchat/files/${kept.id}/${encodeURIComponent(kept.name)}`;
        const comment = file.comment === undefined ? {} : { comment: file.comment };
        const event = { type: 'file' as const, ...kept, url, ...comment, ...threadOf(route.threadId) };
        // Held like a notice: a file sent while its user has no page open is not lost.
        deliver(route.chatId, event, true);
      },
    }),
    readFile: async (id, name) => files?.read(id, name),
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
    subscribe: (user, listener) => streams.subscribe(user, listener),
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
