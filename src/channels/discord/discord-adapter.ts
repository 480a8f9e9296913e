import { type Client, type Message, Routes } from 'discord.js';
import { LRUCache } from 'lru-cache';
import type { Logger } from '../../logging/index.js';
import type { InboundHandler, NativeCommand } from '../../messages/index.js';
import { type ChannelMemory, createLocalMemory } from '../memory.js';
import type { ChannelAdapter, ConnectionEvent, InboundFileStore } from '../types.js';
import { createDiscordCatchUp, type DiscordCatchUp } from './catch-up.js';
import { handleInteraction } from './click.js';
import { registerCommands } from './command-registration.js';
import { attachFile } from './discord-attach.js';
import { connectClient } from './discord-client.js';
import { handleCommand } from './discord-commands.js';
import { withDiscordFiles } from './discord-files.js';
import { sendReply } from './discord-send.js';
import { createDiscordStreaming } from './discord-stream.js';
import { createDiscordThreadReader, type DiscordThreadReader } from './discord-thread.js';
import { createDiscordGate, type DiscordGate } from './gate.js';
import { routeKey, toInbound } from './inbound.js';
import type { DiscordConfig } from './should-hear.js';
import { createTypingIndicator, type TypingIndicator } from './typing.js';

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
  /** Where attachments are saved; without it they are ignored. */
  files?: InboundFileStore;
  /**
   * The router's command table, registered as application commands at start (one bulk overwrite)
   * and read back from their interactions; without it the bot registers none.
   */
  commands?: readonly NativeCommand[];
}

/** What the adapter's parts share (`discord-client.ts`, `discord-send.ts`). */
export interface DiscordState {
  readonly config: DiscordConfig;
  readonly logger: Logger;
  readonly gate: DiscordGate;
  /** Reads a thread's earlier messages when the bot is first mentioned there (`discord-thread.ts`). */
  readonly threads: DiscordThreadReader;
  /** Where each active channel is read from on a (re)connect (`catch-up.ts`). */
  readonly catchUp: DiscordCatchUp;
  /** The client while started (set before its login, cleared by `stop`). */
  client?: Client | undefined;
  onInbound?: InboundHandler | undefined;
  /** Told how the connection fares once started (the channel supervisor). */
  watcher?: ((event: ConnectionEvent, error?: unknown) => void) | undefined;
  /** The last heard message per route key, which replies refer to. */
  readonly lastMessage: LRUCache<string, string>;
  /** DM channel ids by user id, learnt from inbound DMs. */
  readonly directChannels: Map<string, string>;
  readonly typing: TypingIndicator;
  readonly files?: InboundFileStore | undefined;
  readonly commands?: readonly NativeCommand[] | undefined;
}

/**
 * Discord through discord.js v14, transport only: normalizes `messageCreate` into
 * InboundMessages (threads keep their parent as chat id, DMs the user id), decides who is
 * heard with `shouldHear`, shows typing while a turn runs and posts replies (as a reply to
 * the message that started the turn, split at 2000 characters, with a reply's actions as buttons).
 * A click on a button is acknowledged, dispatched and answered in place (`click.ts`); the command
 * table is registered as application commands, run as chat commands (`discord-commands.ts`). Rate limits
 * are waited out by @discordjs/rest. With `stream` (the default) a reply shows as it is
 * written: a placeholder edited as it streams (`discord-stream.ts`).
 */
export function createDiscordAdapter(options: DiscordAdapterOptions): ChannelAdapter {
  const { config, logger } = options;
  const memory = options.memory ?? createLocalMemory();
  const state: DiscordState = {
    config,
    logger,
    gate: createDiscordGate({ config, memory, logger }),
    threads: createDiscordThreadReader({ limit: config.threadHistoryLimit, memory, logger }),
    catchUp: createDiscordCatchUp({ memory, logger }),
    lastMessage: new LRUCache({ max: REPLY_ROUTES }),
    directChannels: new Map(),
    files: options.files,
    commands: options.commands,
    typing: createTypingIndicator((channelId) => {
      state.client?.rest.post(Routes.channelTyping(channelId)).catch((error: unknown) => {
        logger.debug({ err: error, channelId }, 'discord typing failed');
      });
    }),
  };
  const streaming = config.stream === false ? undefined : createDiscordStreaming(state);
  return {
    name: 'discord',
    async start(handler) {
      state.onInbound = handler;
      await connectClient(state, {
        message: (message) => handleMessage(state, message),
        connected: () => catchUp(state),
        interaction: (interaction) =>
          interaction.isChatInputCommand()
            ? handleCommand(state, interaction)
            : handleInteraction(state, interaction),
      });
      await registerCommands(state);
    },
    watch(listener) {
      state.watcher = listener;
    },
    // discord.js turns a 401 from Discord into its TokenInvalid error.
    tokenRefused: (error) => (error as { code?: unknown } | undefined)?.code === 'TokenInvalid',
    async stop() {
      state.onInbound = undefined;
      state.typing.stopAll();
      const active = state.client;
      state.client = undefined;
      await active?.destroy();
    },
    send: (route, message) =>
      streaming === undefined ? sendReply(state, route, message) : streaming.send(route, message),
    ...(streaming === undefined ? {} : { sendDelta: streaming.sendDelta, sendStatus: streaming.sendStatus }),
    sendFile: (route, file) => attachFile(state, route, file),
  };
}

/**
 * A heard message goes to the handler, with typing shown until its turn ends. `stored` is called
 * once the router stored it (or it was not for the bot, or could not be stored).
 */
async function handleMessage(
  state: DiscordState,
  message: Message,
  options: { redelivery?: boolean; stored?: () => void } = {},
): Promise<void> {
  const botId = state.client?.user?.id;
  if (botId === undefined || state.onInbound === undefined) return options.stored?.();
  state.catchUp.arrived(message);
  let taken = false;
  let facts: Awaited<ReturnType<DiscordState['gate']['admit']>>;
  try {
    facts = await state.gate.admit(message, botId);
  } finally {
    if (facts === undefined) {
      state.catchUp.settled(message, false);
      options.stored?.();
    }
  }
  const handler = state.onInbound;
  if (facts === undefined) return;
  if (handler === undefined) return void state.gate.dropped(message.id);
  const [context, withFiles] = await Promise.all([
    state.threads.earlier(message, facts.threadId, botId),
    withDiscordFiles(state, message, toInbound(message, facts, botId)),
  ]);
  const inbound = context.length > 0 ? { ...withFiles, context } : withFiles;
  const key = routeKey(inbound);
  state.lastMessage.set(key, message.id);
  if (inbound.chatType === 'direct') state.directChannels.set(facts.authorId, message.channelId);
  state.typing.hold(key, message.channelId);
  const threadId = facts.threadId;
  try {
    await handler(inbound, {
      ...(options.redelivery ? { redelivery: true } : {}),
      accepted: () => {
        taken = true;
        void state.gate.taken(message.id);
        state.catchUp.settled(message, true);
        options.stored?.();
        if (threadId !== undefined) void state.threads.heard(threadId);
      },
    });
  } catch (error) {
    if (!taken) state.gate.dropped(message.id);
    state.logger.error({ err: error, route: key, messageId: message.id }, 'discord message was not handled');
  } finally {
    options.stored?.();
    state.typing.release(key);
  }
}

/**
 * On every (re)connect: each active channel's messages after the last one seen go to the
 * handler as redeliveries (the router does not store one twice), one at a time, each once stored.
 */
async function catchUp(state: DiscordState): Promise<void> {
  const client = state.client;
  if (client === undefined) return;
  await state.catchUp.read(
    client,
    (message) =>
      new Promise<void>((stored) => {
        void handleMessage(state, message, { redelivery: true, stored });
      }),
  );
}
