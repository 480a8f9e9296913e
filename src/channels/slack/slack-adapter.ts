import type { RequestListener } from 'node:http';
import type { Logger } from '../../logging/index.js';
import { botLimitMessage, botReplyMessage, createBotTurnLimit } from '../bot-turns.js';
import { type ChannelMemory, createLocalMemory, createRecall } from '../memory.js';
import { splitMessage } from '../split-message.js';
import type {
  ChannelAdapter,
  DeliveryRoute,
  InboundHandler,
  InboundMessage,
  OutboundMessage,
} from '../types.js';
import { createBoltApp, type WebClientOptions } from './bolt-app.js';
import { isRefusedTokenError } from './check-credentials.js';
import { fromBot, isBotReplyToUs, type SlackEventFacts, shouldHear, stripMention } from './hear.js';
import type { RawEventBody, RawMessageEvent, SlackConfig } from './types.js';

function factsOf(raw: RawMessageEvent, mentionEvent: boolean): SlackEventFacts {
  return {
    channelType: raw.channel_type,
    channel: raw.channel,
    user: raw.user,
    botId: raw.bot_id,
    subtype: raw.subtype,
    text: raw.text ?? '',
    threadTs: raw.thread_ts,
    parentUserId: raw.parent_user_id,
    mentionEvent,
  };
}

const threadKey = (channel: string, threadTs: string) => `thread:${channel}:${threadTs}`;

/** Slack's limit for `chat.postMessage` text is 40,000; 4,000 keeps a part readable. */
export const SLACK_TEXT_LIMIT = 4000;
const TURN_REACTION = 'eyes';
/** Slack retries a delivery for up to about an hour; a day covers that and a restart in between. */
const ANSWERED_TTL_MS = 24 * 60 * 60 * 1000;
/** A thread the bot took part in is still its own after a month without a word. */
const THREAD_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** How many event ids, message ids and threads this process also keeps at hand. */
const RECENT = 5000;

export interface SlackAdapterOptions {
  config: SlackConfig;
  logger: Logger;
  /** Web API client tuning, e.g. `retryConfig` (tests turn retries off). */
  webClientOptions?: Pick<WebClientOptions, 'retryConfig'>;
  /**
   * Where the threads the bot takes part in and the events it answered are kept, so a restart
   * forgets neither; without it they are kept in this process only.
   */
  memory?: ChannelMemory;
}

export interface SlackAdapter extends ChannelAdapter {
  /** The bot's user id from `auth.test`, known after `start`. */
  readonly botUserId: string | undefined;
  /**
   * HTTP mode: the listener for Slack's event POSTs (path `/slack/events`), which checks their
   * signatures; whoever serves HTTP mounts it. Until Slack is connected it answers 503, so
   * Slack delivers the event again later. Undefined in Socket Mode.
   */
  readonly eventsListener: RequestListener | undefined;
}

/**
 * Slack through @slack/bolt: Socket Mode by default, Bolt's HTTP receiver with `mode: 'http'`
 * (mounted by the gateway's HTTP server at `/slack/events`).
 * Hears `message` and `app_mention` events as `shouldHear` allows, once per event id and per
 * message. `onInbound` is awaited with an `eyes` reaction on the message for the turn. A channel
 * message's session is its thread (a top-level message opens one), so replies go to the route's
 * thread; a route without one (a named route) posts in the channel itself.
 */
export function createSlackAdapter(options: SlackAdapterOptions): SlackAdapter {
  const { config, logger } = options;
  const bolt = createBoltApp({
    config,
    logger,
    webClientOptions: options.webClientOptions,
  });
  const client = bolt.app.client;
  const memory = options.memory ?? createLocalMemory();
  const seen = createRecall({ memory, ttlMs: ANSWERED_TTL_MS, limit: RECENT, logger });
  const threads = createRecall({ memory, ttlMs: THREAD_TTL_MS, limit: RECENT, logger });
  /** User id → DM channel id, from inbound DMs and `conversations.open`. */
  const directChannels = new Map<string, string>();
  let onInbound: InboundHandler | undefined;
  /** Started and not stopped since. */
  let connected = false;
  let botUserId: string | undefined;
  let botId: string | undefined;

  const identity = () => ({ botUserId, botId });
  const botTurns = createBotTurnLimit({ limit: config.maxBotTurns });

  /** Whether a heard message may start a turn: the guards against two bots answering each other. */
  const allowedTurn = (facts: SlackEventFacts, raw: RawMessageEvent): boolean => {
    const where = { channel: raw.channel, ts: raw.ts, botId: raw.bot_id };
    if (isBotReplyToUs(facts, botUserId)) {
      logger.info(where, botReplyMessage('slack'));
      return false;
    }
    // The conversation is the thread (a top-level message opens one); a DM without threads is one.
    const conversation = `${raw.channel}:${raw.thread_ts ?? (raw.channel_type === 'im' ? '' : raw.ts)}`;
    if (botTurns.allow(conversation, fromBot(facts))) return true;
    logger.info(where, botLimitMessage('slack', config.maxBotTurns));
    return false;
  };

  const receive = async (raw: RawMessageEvent, body: RawEventBody, mentionEvent: boolean) => {
    // Slack retries a slow delivery with the same event id; a mention comes as `message` and `app_mention`.
    const eventKey = body.event_id === undefined ? undefined : `event:${body.event_id}`;
    const messageKey = `message:${raw.channel}:${raw.ts}`;
    if (eventKey !== undefined && !seen.firstHere(eventKey)) return;
    if (!seen.firstHere(messageKey)) return;
    const facts = factsOf(raw, mentionEvent);
    const participating =
      raw.thread_ts !== undefined && (await threads.has(threadKey(raw.channel, raw.thread_ts)));
    const handler = onInbound;
    if (!handler || !shouldHear(facts, config, { ...identity(), inThread: () => participating })) {
      logger.debug({ channel: raw.channel, ts: raw.ts, user: raw.user }, 'slack event not heard');
      return;
    }
    // Answered before a restart: the store remembers the event and the message.
    const newEvent = eventKey === undefined || (await seen.claim(eventKey));
    const newMessage = await seen.claim(messageKey);
    if (!newEvent || !newMessage) {
      logger.info(
        { channel: raw.channel, ts: raw.ts, eventId: body.event_id },
        'slack event already answered',
      );
      return;
    }
    if (!allowedTurn(facts, raw)) return;
    // Not awaited: Bolt has acked already, and a turn may run for minutes.
    void deliver(handler, raw, body);
  };

  const deliver = async (handler: InboundHandler, raw: RawMessageEvent, body: RawEventBody) => {
    const direct = raw.channel_type === 'im';
    const sender = raw.user ?? raw.bot_id ?? 'unknown';
    if (direct) directChannels.set(sender, raw.channel);
    else await threads.add(threadKey(raw.channel, raw.thread_ts ?? raw.ts));
    const teamId = raw.team ?? body.team_id;
    // The bot answers a channel message in its thread, so the conversation is that thread: a
    // top-level message opens the session `…:thread:<its ts>`, and replies in the thread continue it.
    const threadId = direct ? raw.thread_ts : (raw.thread_ts ?? raw.ts);
    const message: InboundMessage = {
      channel: 'slack',
      chatType: direct ? 'direct' : 'channel',
      chatId: direct ? sender : raw.channel,
      ...(threadId === undefined ? {} : { threadId }),
      senderId: `slack:${sender}`,
      text: stripMention(raw.text ?? '', botUserId),
      messageId: raw.ts,
      ...(teamId === undefined ? {} : { teamId }),
    };
    const reaction = { channel: raw.channel, timestamp: raw.ts, name: TURN_REACTION };
    await client.reactions
      .add(reaction)
      .catch((error: unknown) => warn(error, 'reactions.add failed', reaction));
    try {
      await handler(message);
    } catch (error) {
      logger.error({ err: error, chatId: message.chatId, messageId: raw.ts }, 'slack turn failed');
    } finally {
      await client.reactions
        .remove(reaction)
        .catch((error: unknown) => warn(error, 'reactions.remove failed', reaction));
    }
  };

  const warn = (error: unknown, text: string, details: object) =>
    logger.warn({ err: error, ...details }, text);

  const directChannel = async (user: string) => {
    const known = directChannels.get(user);
    if (known !== undefined) return known;
    const opened = await client.conversations.open({ users: user });
    const id = opened.channel?.id;
    if (id === undefined) throw new Error(`conversations.open gave no channel for ${user}`);
    directChannels.set(user, id);
    return id;
  };

  /** Bolt's listener while Slack is connected; before (or between) starts, 503 and Slack tries again. */
  function eventsListener(): RequestListener | undefined {
    const listener = bolt.requestListener;
    if (listener === undefined) return undefined;
    return (request, response) => {
      if (connected) return listener(request, response);
      request.resume();
      response
        .writeHead(503, { 'content-type': 'text/plain', 'retry-after': '10' })
        .end('slack is not connected yet');
    };
  }

  const listen =
    (mentionEvent: boolean) =>
    async ({ event, body }: { event: unknown; body: unknown }) => {
      // Not awaited: the store is read before deciding, and Bolt's ack must not wait for it.
      receive(event as RawMessageEvent, body as RawEventBody, mentionEvent).catch((error: unknown) =>
        logger.warn({ err: error }, 'slack event could not be read'),
      );
    };
  bolt.app.event('message', listen(false));
  bolt.app.event('app_mention', listen(true));
  bolt.app.error(async (error) => {
    logger.error({ err: error }, 'slack app error');
  });

  return {
    name: 'slack',
    get botUserId() {
      return botUserId;
    },
    eventsListener: eventsListener(),
    async start(handler) {
      const identity = await bolt.startClient.auth.test();
      botUserId = identity.user_id;
      botId = identity.bot_id;
      onInbound = handler;
      await bolt.start();
      connected = true;
      logger.info({ mode: config.mode, botUserId }, 'slack connected');
    },
    tokenRefused: isRefusedTokenError,
    watch(listener) {
      bolt.onLost((error) => {
        connected = false;
        logger.warn({ err: error }, 'slack connection lost; reconnecting failed');
        listener('lost', error);
      });
    },
    async stop() {
      onInbound = undefined;
      connected = false;
      // Turns still running end on their own (the gateway interrupts them); their replies may still post.
      await bolt.stop();
    },
    async send(route: DeliveryRoute, message: OutboundMessage) {
      try {
        const channel = route.chatType === 'direct' ? await directChannel(route.chatId) : route.chatId;
        // Channel routes carry their thread (see `deliver`); one without (a named route) posts in the channel.
        const threadTs = route.threadId;
        for (const text of splitMessage(message.text, SLACK_TEXT_LIMIT)) {
          await client.chat.postMessage({
            channel,
            text,
            ...(threadTs === undefined ? {} : { thread_ts: threadTs }),
          });
        }
        if (threadTs !== undefined && route.chatType === 'channel')
          await threads.add(threadKey(channel, threadTs));
      } catch (error) {
        logger.error({ err: error, route, messageId: message.id }, 'slack post failed');
        throw error;
      }
    },
  };
}
