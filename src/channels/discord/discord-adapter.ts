import { once } from 'node:events';
import { Client, Events, GatewayIntentBits, type Message, Partials, Routes } from 'discord.js';
import { SwitchboardError } from '../../errors/index.js';
import type { Logger } from '../../logging/index.js';
import type { DeliveryRoute, InboundHandler, OutboundMessage } from '../../messages/index.js';
import { type ChannelMemory, createLocalMemory } from '../memory.js';
import { splitMessage } from '../split-message.js';
import type { ChannelAdapter, ConnectionEvent } from '../types.js';
import { createDiscordGate } from './gate.js';
import { routeKey, toInbound } from './inbound.js';
import type { DiscordConfig } from './should-hear.js';

/** Discord's limit on one message's content. */
const MESSAGE_LIMIT = 2000;
/** Discord shows typing for 10 s after each call. */
const TYPING_REFRESH_MS = 8000;
/** Routes whose last message (the reply reference) is kept. */
const REPLY_ROUTES = 10000;

export interface DiscordAdapterOptions {
  config: DiscordConfig;
  logger: Logger;
  /**
   * Where the threads the bot takes part in and the messages it heard are kept, so a restart
   * forgets neither; without it they are kept in this process only.
   */
  memory?: ChannelMemory;
}

/**
 * Discord through discord.js v14, transport only: normalizes `messageCreate` into
 * InboundMessages (threads keep their parent as chat id, DMs the user id), decides who is
 * heard with `shouldHear`, shows typing while a turn runs and posts replies (as a reply to
 * the message that started the turn, split at 2000 characters). Rate limits are waited out
 * by @discordjs/rest.
 */
export function createDiscordAdapter(options: DiscordAdapterOptions): ChannelAdapter {
  const { config, logger } = options;
  let client: Client | undefined;
  let onInbound: InboundHandler | undefined;
  const gate = createDiscordGate({ config, memory: options.memory ?? createLocalMemory(), logger });
  /** The last heard message per route, which replies refer to. */
  const lastMessage = new Map<string, string>();
  /** DM channel ids by user id, learnt from inbound DMs. */
  const directChannels = new Map<string, string>();
  /** Told how the connection fares once started (the channel supervisor). */
  let watcher: ((event: ConnectionEvent, error?: unknown) => void) | undefined;
  /** Typing per route, held by every turn running there; a reply or the last turn's end stops it. */
  const typing = new Map<string, { timer: NodeJS.Timeout; holders: number }>();

  const stopTyping = (key: string) => {
    clearInterval(typing.get(key)?.timer);
    typing.delete(key);
  };

  const releaseTyping = (key: string) => {
    const entry = typing.get(key);
    if (entry !== undefined && --entry.holders <= 0) stopTyping(key);
  };

  const holdTyping = (key: string, channelId: string) => {
    const post = () => {
      client?.rest.post(Routes.channelTyping(channelId)).catch((error: unknown) => {
        logger.debug({ err: error, channelId }, 'discord typing failed');
      });
    };
    post();
    const entry = typing.get(key);
    if (entry !== undefined) entry.holders += 1;
    else typing.set(key, { timer: setInterval(post, TYPING_REFRESH_MS), holders: 1 });
  };

  const handle = async (message: Message) => {
    const botId = client?.user?.id;
    if (botId === undefined || onInbound === undefined) return;
    const facts = await gate.admit(message, botId);
    const handler = onInbound;
    if (facts === undefined || handler === undefined) return;
    const inbound = toInbound(message, facts, botId);
    const key = routeKey(inbound);
    lastMessage.delete(key);
    lastMessage.set(key, message.id);
    const oldest = lastMessage.keys().next().value;
    if (lastMessage.size > REPLY_ROUTES && oldest !== undefined) lastMessage.delete(oldest);
    if (inbound.chatType === 'direct') directChannels.set(facts.authorId, message.channelId);
    holdTyping(key, message.channelId);
    try {
      await handler(inbound);
    } catch (error) {
      logger.error({ err: error, route: key, messageId: message.id }, 'discord message was not handled');
    } finally {
      releaseTyping(key);
    }
  };

  /** The channel id to post to: a thread, a channel, or the DM channel with a user. */
  const targetOf = async (active: Client, route: DeliveryRoute): Promise<string> => {
    if (route.chatType === 'channel') return route.threadId ?? route.chatId;
    const known = directChannels.get(route.chatId);
    if (known !== undefined) return known;
    const dm = await active.users.createDM(route.chatId);
    directChannels.set(route.chatId, dm.id);
    return dm.id;
  };

  return {
    name: 'discord',
    async start(handler) {
      onInbound = handler;
      const created = new Client({
        intents: [
          GatewayIntentBits.Guilds,
          GatewayIntentBits.GuildMessages,
          GatewayIntentBits.MessageContent,
          GatewayIntentBits.DirectMessages,
        ],
        // Without it discord.js drops DMs whose channel is not cached yet.
        partials: [Partials.Channel],
        ...(config.apiBase === undefined ? {} : { rest: { api: config.apiBase } }),
      });
      client = created;
      created.on(Events.MessageCreate, (message) => {
        handle(message).catch((error: unknown) => {
          logger.warn({ err: error, messageId: message.id }, 'discord message could not be read');
        });
      });
      created.on(Events.Error, (error) => logger.error({ err: error }, 'discord client error'));
      // discord.js reconnects by itself; a shard that will not reconnect is lost for good. Only
      // while this client is the adapter's: `stop` destroying it is no loss.
      const tell = (event: ConnectionEvent, error?: unknown) => {
        if (client === created && onInbound !== undefined) watcher?.(event, error);
      };
      created.on(Events.ShardReconnecting, () => tell('down'));
      created.on(Events.ShardResume, () => tell('up'));
      created.on(Events.ShardReady, () => tell('up'));
      created.on(Events.ShardDisconnect, (event) =>
        tell('lost', new Error(`gateway closed (${event.code})`)),
      );
      const ready = once(created, Events.ClientReady);
      // Awaited only after a successful login; a failed login must not leave it unhandled.
      ready.catch(() => undefined);
      try {
        await created.login(config.token);
        if (!created.isReady()) await ready;
      } catch (error) {
        logger.error({ err: error }, 'discord login failed (check channels.discord.token)');
        client = undefined;
        await created.destroy();
        throw error;
      }
      logger.info({ user: created.user?.tag, guilds: created.guilds.cache.size }, 'discord connected');
    },
    watch(listener) {
      watcher = listener;
    },
    // discord.js turns a 401 from Discord into its TokenInvalid error.
    tokenRefused: (error) => (error as { code?: unknown } | undefined)?.code === 'TokenInvalid',
    async stop() {
      onInbound = undefined;
      for (const key of [...typing.keys()]) stopTyping(key);
      const active = client;
      client = undefined;
      await active?.destroy();
    },
    async send(route, message: OutboundMessage) {
      const active = client;
      if (active === undefined) throw new SwitchboardError('GATEWAY_STATE', 'discord is not connected');
      const key = routeKey(route);
      stopTyping(key);
      const replyTo = lastMessage.get(key);
      try {
        const target = await targetOf(active, route);
        if (route.chatType === 'channel' && route.threadId !== undefined)
          await gate.joinThread(route.threadId);
        for (const [index, content] of splitMessage(message.text, MESSAGE_LIMIT).entries()) {
          const reference =
            index === 0 && replyTo !== undefined
              ? { message_reference: { message_id: replyTo, fail_if_not_exists: false } }
              : {};
          // Only users may be pinged by a reply; never @everyone or roles from model text.
          await active.rest.post(Routes.channelMessages(target), {
            body: { content, allowed_mentions: { parse: ['users'] }, ...reference },
          });
        }
      } catch (error) {
        logger.error({ err: error, route: key, replyId: message.id }, 'discord reply failed');
        throw error;
      }
    },
  };
}
