import type { RequestListener } from 'node:http';
import type { Logger } from '../../logging/index.js';
import type { DeliveryRoute, InboundHandler, OutboundMessage } from '../../messages/index.js';
import { type ChannelMemory, createLocalMemory } from '../memory.js';
import { splitMessage } from '../split-message.js';
import type { ChannelAdapter } from '../types.js';
import { ACK_BUDGET_MS, EventNotStoredError, withinBudget } from './ack.js';
import { createBoltApp, type WebClientOptions } from './bolt-app.js';
import { isRefusedTokenError } from './check-credentials.js';
import { createSlackGate } from './gate.js';
import { toInbound } from './inbound.js';
import type { RawEventBody, RawMessageEvent, SlackConfig } from './types.js';

/** Slack's limit for `chat.postMessage` text is 40,000; 4,000 keeps a part readable. */
export const SLACK_TEXT_LIMIT = 4000;
const TURN_REACTION = 'eyes';

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
 * message. Slack is told an event arrived only once `onInbound` has stored its message (see
 * `listen`); an `eyes` reaction marks the message while its turn runs. A channel
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
  const gate = createSlackGate({ config, memory: options.memory ?? createLocalMemory(), logger });
  /** User id → DM channel id, from inbound DMs and `conversations.open`. */
  const directChannels = new Map<string, string>();
  let onInbound: InboundHandler | undefined;
  /** Started and not stopped since. */
  let connected = false;
  let botUserId: string | undefined;
  let botId: string | undefined;

  /**
   * Resolves once the event is settled for Slack: not admitted, or handed over and stored by the
   * router (`accepted`); the turn goes on after that. Rejects when the message was not stored.
   */
  const receive = async (
    raw: RawMessageEvent,
    body: RawEventBody,
    mentionEvent: boolean,
    redelivery: boolean,
  ) => {
    // Stopped (a restart) after Bolt took the request: not acknowledged, so Slack delivers it again.
    const stopped = () => new EventNotStoredError({ cause: new Error('the Slack channel stopped') });
    if (onInbound === undefined) throw stopped();
    if (!(await gate.admit(raw, body, mentionEvent, { botUserId, botId }))) return;
    // Read again: the adapter may have stopped while the store answered.
    const handler = onInbound;
    if (handler === undefined) throw stopped();
    await new Promise<void>((accepted, notStored) => {
      // A turn that ended is accepted too (whatever the handler said before).
      deliver(handler, { raw, body, redelivery }, accepted).then(() => accepted(), notStored);
    });
  };

  /**
   * Hands the message to the router before anything that talks to Slack: the eyes reaction is
   * started, not awaited, so a slow or rate-limited `reactions.add` never delays the store.
   * Rejects only when the router failed before the message was stored.
   */
  const deliver = async (
    handler: InboundHandler,
    { raw, body, redelivery }: { raw: RawMessageEvent; body: RawEventBody; redelivery: boolean },
    accepted: () => void,
  ) => {
    const direct = raw.channel_type === 'im';
    const sender = raw.user ?? raw.bot_id ?? 'unknown';
    if (direct) directChannels.set(sender, raw.channel);
    const joined = direct ? undefined : gate.joinThread(raw.channel, raw.thread_ts ?? raw.ts);
    const message = toInbound(raw, body, botUserId);
    const reaction = { channel: raw.channel, timestamp: raw.ts, name: TURN_REACTION };
    const reacted = client.reactions
      .add(reaction)
      .then(() => true)
      .catch((error: unknown) => {
        warn(error, 'reactions.add failed', reaction);
        return false;
      });
    let stored = false;
    try {
      await handler(message, {
        redelivery,
        accepted: () => {
          stored = true;
          accepted();
          void gate.taken(raw, body);
        },
      });
    } catch (error) {
      if (!stored) {
        gate.dropped(raw, body);
        throw new EventNotStoredError({ cause: error });
      }
      logger.error({ err: error, chatId: message.chatId, messageId: raw.ts }, 'slack turn failed');
    } finally {
      await joined?.catch((error: unknown) => warn(error, 'slack thread not remembered', reaction));
      // Removed only once added: a removal that overtook the add would leave the eyes on for good.
      if (await reacted)
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

  /**
   * Bolt's listener: returns once the message is stored (or not admitted), and Slack is told the
   * event arrived only then (HTTP: `processBeforeResponse`; Socket Mode: `holdEnvelopeAcks`).
   * After ACK_BUDGET_MS it returns anyway, as Slack would otherwise deliver the event again.
   */
  const listen =
    (mentionEvent: boolean) =>
    async ({ event, body, context }: { event: unknown; body: unknown; context: { retryNum?: number } }) => {
      const raw = event as RawMessageEvent;
      // Slack numbers its redeliveries (HTTP: X-Slack-Retry-Num; Socket Mode: retry_attempt).
      const redelivery = (context.retryNum ?? 0) > 0;
      const settled = receive(raw, body as RawEventBody, mentionEvent, redelivery);
      const outcome = await withinBudget(settled, ACK_BUDGET_MS).catch((error: unknown) => {
        logger.warn(
          { err: error, channel: raw.channel, ts: raw.ts },
          'slack event not stored; not acknowledged',
        );
        throw error instanceof EventNotStoredError ? error : new EventNotStoredError({ cause: error });
      });
      if (outcome !== 'late') return;
      logger.warn(
        { channel: raw.channel, ts: raw.ts, budgetMs: ACK_BUDGET_MS },
        'slack event acknowledged before the store said it was kept (the store is slow)',
      );
      settled.catch((error: unknown) =>
        logger.error({ err: error, channel: raw.channel, ts: raw.ts }, 'acknowledged slack event not stored'),
      );
    };
  bolt.app.event('message', listen(false));
  bolt.app.event('app_mention', listen(true));
  bolt.app.error(async (error) => {
    // Rethrown so the receiver does not acknowledge the event: Slack delivers it again.
    if (error instanceof EventNotStoredError) throw error;
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
        if (threadTs !== undefined && route.chatType === 'channel') await gate.joinThread(channel, threadTs);
      } catch (error) {
        logger.error({ err: error, route, messageId: message.id }, 'slack post failed');
        throw error;
      }
    },
  };
}
