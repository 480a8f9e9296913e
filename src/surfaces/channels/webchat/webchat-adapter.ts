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
  | {
      type: 'reply';
      id: string;
      text: string;
      thread?: string;
      actions?: ReplyAction[];
      /** Not the model's: a command's answer (plain text) or an approval (`OutboundMessage.origin`). */
      origin?: 'command' | 'approval';
      /** A note from the gateway (a restart note): shown as a system line. */
      notice?: true;
    }
  | { type: 'reply.delta'; id: string; delta: string; thread?: string }
  /** A button of reply `id` was clicked and answered: `text` replaces its buttons. */
  | { type: 'reply.decided'; id: string; text: string; thread?: string }
  /** A file sent to the chat (`chat.attach`): `url` downloads it (authenticated, like the API). */
  | { type: 'file'; id: string; name: string; size: number; url: string; comment?: string; thread?: string }
  | { type: 'closing' };

/**
 * What the web chat showed that the session's transcript does not keep (a typed command, its
 * answer, an approval request): the chat page's history reads it back beside the transcript.
 */
export interface WebchatShown {
  /** A reply's id (its buttons name it), or `typed:<message id>` for a typed command. */
  id: string;
  at: string;
  role: 'user' | 'assistant';
  text: string;
  origin: 'command' | 'approval';
  actions?: ReplyAction[];
}

/** Where the web chat keeps what it showed (the gateway's store); a failed write is logged, never thrown at a chat. */
export interface WebchatJournal {
  /** Keeps `entry` of `user`'s chat in `thread` (one with the same id is replaced); resolves once durable. */
  keep(user: string, thread: string | undefined, entry: WebchatShown): Promise<void>;
  /** Reply `id` was decided: `text` replaces its buttons. */
  decide(user: string, thread: string | undefined, id: string, text: string): Promise<void>;
}

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
  /** Where what the transcript does not keep is kept for the history; without it, nowhere. */
  journal?: WebchatJournal;
}): WebchatAdapter {
  const { logger, journal } = options;
  /** Kept before it is shown or answered; a store failure costs the history that entry, not the chat. */
  const keep = async (user: string, thread: string | undefined, entry: WebchatShown) => {
    await journal?.keep(user, thread, entry).catch((error: unknown) => {
      logger.warn({ err: error, user }, 'web chat journal: entry not kept');
    });
  };
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
      if (message.origin !== undefined && event.type === 'reply')
        await keep(route.chatId, route.threadId, shownOf(event, message.origin));
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
    async receive(input) {
      const at = new Date().toISOString();
      const message = inboundOfInput(input);
      const result = await dispatch(message);
      // A command (answered at once, no turn): the typed line is kept beside its answer.
      if (result.status === undefined && result.replies.some((reply) => reply.origin !== undefined)) {
        const typed = { id: `typed:${message.messageId}`, at, role: 'user' as const, text: input.text };
        await keep(input.user, input.thread, { ...typed, origin: 'command' });
      }
      return result;
    },
    async receiveClick(click) {
      const result = await dispatch(inboundOfClick(click));
      const answer = result.replies[0];
      const text = answer?.text;
      // An answer with buttons (a click that did not count) is for the clicker: the request stays open.
      const decided = (answer?.actions?.length ?? 0) === 0;
      if (click.reply !== undefined && text && decided) {
        publish(click.user, { type: 'reply.decided', id: click.reply, text, ...threadOf(click.thread) });
        await journal?.decide(click.user, click.thread, click.reply, text).catch((error: unknown) => {
          logger.warn({ err: error, user: click.user }, 'web chat journal: decision not kept');
        });
      }
      return result;
    },
    subscribe: (user, listener) => streams.subscribe(user, listener),
  };
}

function shownOf(event: WebchatEvent & { type: 'reply' }, origin: WebchatShown['origin']): WebchatShown {
  const actions = event.actions ? { actions: event.actions } : {};
  return {
    id: event.id,
    at: new Date().toISOString(),
    role: 'assistant',
    text: event.text,
    origin,
    ...actions,
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
    ...(message.origin ? { origin: message.origin } : {}),
    ...(message.notice ? { notice: true as const } : {}),
  };
}
