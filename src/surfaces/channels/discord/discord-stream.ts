import { Routes } from 'discord.js';
import type {
  DeliveryRoute,
  OutboundDelta,
  OutboundMessage,
  ReplyAction,
} from '../../../base/messages/index.js';
import { createEditBudget, createLiveReplies, createLiveReply, type LiveReply } from '../live-reply.js';
import { renderButtons } from './components.js';
import { type DiscordSender, type DiscordSenderOptions, embedFlags, MESSAGE_LIMIT } from './discord-send.js';
import { routeKey } from './inbound.js';

/**
 * Discord allows 5 message edits per 5 seconds per channel; spread evenly (one a second) so a
 * burst of streaming edits never leaves the final text waiting out the rest of the window.
 */
const EDITS_PER_CHANNEL = { max: 1, windowMs: 1000 };

/** Streaming on Discord: `sendDelta`, `sendStatus` and the `send` that ends a streamed reply. */
export interface DiscordStreaming {
  sendDelta(route: DeliveryRoute, delta: OutboundDelta): void;
  sendStatus(route: DeliveryRoute, text: string): void;
  /** Sends `message`: into its streamed placeholder when there is one, else as the sender's `post` does. */
  send(route: DeliveryRoute, message: OutboundMessage): Promise<void>;
}

/**
 * The first delta of a reply (or a tool status line) posts a placeholder (a reply to the message
 * that started the turn), edited as the text grows within 5 edits per 5 s per channel (one a second); the final
 * text replaces it (buttons under its last part) and a reply over 2000 characters continues in
 * more messages. Rate-limited calls are waited out by @discordjs/rest.
 */
export function createDiscordStreaming(
  options: Pick<
    DiscordSenderOptions,
    'client' | 'config' | 'logger' | 'typing' | 'replyTo' | 'joinThread'
  > & {
    /** Posts a reply that did not stream, and finds a route's channel. */
    sender: DiscordSender;
  },
): DiscordStreaming {
  const { config, logger, typing, sender } = options;
  const budget = createEditBudget(EDITS_PER_CHANNEL);
  const open = createLiveReplies();
  const actionsOf = new WeakMap<LiveReply, { value: readonly ReplyAction[] }>();
  const active = options.client;
  const make = (route: DeliveryRoute) => (): LiveReply => {
    const key = routeKey(route);
    const actions = { value: [] as readonly ReplyAction[] };
    let replyTo = options.replyTo(key);
    const channel = route.chatType === 'channel' ? (route.threadId ?? route.chatId) : `dm:${route.chatId}`;
    const body = (text: string, last: boolean) => {
      const rows = last ? renderButtons(actions.value).rows : [];
      // Only users may be pinged by a reply; never @everyone or roles from model text.
      return {
        content: text,
        allowed_mentions: { parse: ['users'] },
        components: rows,
        flags: embedFlags(config, route, text),
      };
    };
    const live = createLiveReply<{ channel: string; id: string }>({
      limit: MESSAGE_LIMIT,
      budget,
      budgetKey: channel,
      logger,
      transport: {
        async post(part) {
          typing.stop(key);
          const target = await sender.target(route);
          const reference =
            replyTo === undefined
              ? {}
              : { message_reference: { message_id: replyTo, fail_if_not_exists: false } };
          replyTo = undefined;
          const posted = (await active().rest.post(Routes.channelMessages(target), {
            body: { ...body(part.text, part.lastOfFinal), ...reference },
          })) as { id: string };
          return { channel: target, id: posted.id };
        },
        async edit(ref, part) {
          await active().rest.patch(Routes.channelMessage(ref.channel, ref.id), {
            body: body(part.text, part.lastOfFinal),
          });
        },
        retryAfter: () => undefined,
      },
    });
    actionsOf.set(live, actions);
    return live;
  };
  return {
    sendDelta: (route, delta) => open.delta(routeKey(route), delta.id, delta.delta, make(route)),
    sendStatus: (route, text) => open.status(routeKey(route), text, make(route)),
    async send(route, message) {
      const buttons = (message.actions?.length ?? 0) > 0;
      const live = open.take(routeKey(route), message.id, buttons);
      if (live === undefined) return sender.post(route, message);
      const actions = actionsOf.get(live);
      if (actions !== undefined) actions.value = message.actions ?? [];
      typing.stop(routeKey(route));
      try {
        if (route.chatType === 'channel' && route.threadId !== undefined)
          await options.joinThread(route.threadId);
        await live.finish(message.text, buttons);
      } catch (error) {
        logger.error(
          { err: error, route: routeKey(route), replyId: message.id },
          'discord streamed reply failed',
        );
        throw error;
      }
    },
  };
}
