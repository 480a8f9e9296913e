import { webApi } from '@slack/bolt';
import type { Logger } from '../../../base/logging/index.js';
import type {
  DeliveryRoute,
  OutboundDelta,
  OutboundMessage,
  ReplyAction,
} from '../../../base/messages/index.js';
import type { DirectChannels } from '../direct-channels.js';
import {
  createEditBudget,
  createLiveReplies,
  createLiveReply,
  type LivePart,
  type LiveReply,
} from '../live-reply.js';
import { escapeMrkdwn, replyBlocks, toMrkdwn } from './blocks.js';
import { toBoltLogger } from './bolt-app.js';
import { channelOf, SLACK_TEXT_LIMIT, type SlackSender, unfurls } from './slack-send.js';
import { type SlackConfig, slackApiUrl } from './types.js';

/** Slack allows about one `chat.update` per second per message. */
const UPDATES_PER_SECOND = { max: 1, windowMs: 1000 };

/** Streaming on Slack: `sendDelta`, `sendStatus` and the `send` that ends a streamed reply. */
export interface SlackStreaming {
  sendDelta(route: DeliveryRoute, delta: OutboundDelta): void;
  sendStatus(route: DeliveryRoute, text: string): void;
  /** Sends `message`: into its streamed placeholder when there is one, else as the sender's `post` does. */
  send(route: DeliveryRoute, message: OutboundMessage): Promise<void>;
}

/**
 * The first delta of a reply (or a tool status line) posts a placeholder in the route's thread,
 * updated with `chat.update` at most once a second as the text grows; the final text replaces it
 * (as mrkdwn, buttons under its last part) and a reply over SLACK_TEXT_LIMIT continues in more
 * messages. Its own Web API client rejects rate-limited calls so a 429 is waited out here
 * (Retry-After) and the wait ends with the newest text.
 */
export function createSlackStreaming(options: {
  config: SlackConfig;
  logger: Logger;
  directChannels: DirectChannels;
  /** Where a reply that did not stream goes. */
  sender: SlackSender;
  /** The bot takes part in a thread it posted in (`SlackGate.joinThread`). */
  joinThread(chatId: string, threadTs: string): Promise<void>;
}): SlackStreaming {
  const { config, logger, directChannels, sender } = options;
  const client = new webApi.WebClient(config.botToken, {
    slackApiUrl: slackApiUrl(config),
    logger: toBoltLogger(logger),
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 0 },
  });
  const budget = createEditBudget(UPDATES_PER_SECOND);
  const open = createLiveReplies();
  const keyOf = (route: DeliveryRoute) => `${route.chatId}:${route.threadId ?? ''}`;
  const create = (route: DeliveryRoute, actions: { value: readonly ReplyAction[] }): LiveReply => {
    const where = { id: crypto.randomUUID() };
    return createLiveReply<{ channel: string; ts: string }>({
      limit: SLACK_TEXT_LIMIT,
      budget,
      budgetKey: where.id,
      logger,
      transport: {
        async post(part) {
          const channel =
            route.chatType === 'direct' ? await directChannels.resolve(route.chatId) : route.chatId;
          const posted = await client.chat.postMessage({
            channel,
            ...payload(part, actions.value),
            ...unfurls(config, channelOf(route), part.text),
            ...(route.threadId === undefined ? {} : { thread_ts: route.threadId }),
          });
          return { channel: posted.channel ?? channel, ts: posted.ts ?? '' };
        },
        async edit(ref, part) {
          await client.chat.update({
            ...ref,
            ...payload(part, actions.value),
            ...unfurls(config, channelOf(route), part.text),
          });
        },
        async remove(ref) {
          await client.chat.delete(ref);
        },
        retryAfter: (error) => {
          const rateLimited = error as { code?: unknown; retryAfter?: unknown };
          return rateLimited.code === webApi.ErrorCode.RateLimitedError &&
            typeof rateLimited.retryAfter === 'number'
            ? rateLimited.retryAfter * 1000
            : undefined;
        },
      },
    });
  };
  const actionsOf = new WeakMap<LiveReply, { value: readonly ReplyAction[] }>();
  const make = (route: DeliveryRoute) => () => {
    const actions = { value: [] as readonly ReplyAction[] };
    const live = create(route, actions);
    actionsOf.set(live, actions);
    return live;
  };
  return {
    sendDelta: (route, delta) => open.delta(keyOf(route), delta.id, delta.delta, make(route)),
    sendStatus: (route, text) => open.status(keyOf(route), text, make(route)),
    async send(route, message) {
      const buttons = (message.actions?.length ?? 0) > 0;
      const live = open.take(keyOf(route), message.id, buttons);
      if (live === undefined) return sender.post(route, message);
      const actions = actionsOf.get(live);
      actionsOf.delete(live);
      if (actions !== undefined) actions.value = message.actions ?? [];
      try {
        await live.finish(message.text, buttons);
      } catch (error) {
        logger.error({ err: error, route, messageId: message.id }, 'slack streamed reply failed');
        throw error;
      }
      if (route.threadId !== undefined && route.chatType === 'channel')
        await options.joinThread(route.chatId, route.threadId);
    },
  };
}

/** A part as `chat.postMessage` / `chat.update` fields: mrkdwn, or escaped text with the buttons. */
function payload(part: LivePart, actions: readonly ReplyAction[]): { text: string; blocks?: unknown[] } {
  if (part.lastOfFinal && actions.length > 0)
    return { text: escapeMrkdwn(part.text), blocks: replyBlocks(part.text, actions) };
  return { text: toMrkdwn(part.text) };
}
