import { type Client, Routes } from 'discord.js';
import { LRUCache } from 'lru-cache';
import { SwitchboardError } from '../../../base/errors/index.js';
import type { Logger } from '../../../base/logging/index.js';
import type { InboundHandler, NativeCommand } from '../../../base/messages/index.js';
import { createDirectChannels } from '../direct-channels.js';
import { type ChannelMemory, createLocalMemory } from '../memory.js';
import { createChannelNames } from '../names.js';
import type { ChannelAdapter, ConnectionEvent, InboundFileStore } from '../types.js';
import { createDiscordCatchUp } from './catch-up.js';
import { handleInteraction } from './click.js';
import { registerCommands } from './command-registration.js';
import { connectClient, createClient } from './discord-client.js';
import { handleCommand } from './discord-commands.js';
import { createDiscordLiveness } from './discord-liveness.js';
import { DiscordMessages } from './discord-receive.js';
import { createDiscordSender } from './discord-send.js';
import { createDiscordStreaming } from './discord-stream.js';
import { createDiscordThreadReader } from './discord-thread.js';
import { createDiscordGate } from './gate.js';
import type { DiscordConfig } from './should-hear.js';
import { createTypingIndicator } from './typing.js';

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
  const { config, logger, commands } = options;
  const memory = options.memory ?? createLocalMemory();
  /** The client while started (set before its login, cleared by `stop`). */
  let client: Client | undefined;
  /** The router's dispatch, from `start` until `stop`. */
  let onInbound: InboundHandler | undefined;
  /** Told how the connection fares once started (the channel supervisor). */
  let watcher: ((event: ConnectionEvent, error?: unknown) => void) | undefined;
  const handler = () => onInbound;
  const botId = () => client?.user?.id;
  const running = (): Client => {
    if (client === undefined) throw new SwitchboardError('CHANNEL_NOT_CONNECTED', 'discord is not connected');
    return client;
  };
  const gate = createDiscordGate({ config, memory, logger });
  const joinThread = (threadId: string) => gate.joinThread(threadId);
  const lastMessage = new LRUCache<string, string>({ max: REPLY_ROUTES });
  const replyTo = (key: string) => lastMessage.get(key);
  const directChannels = createDirectChannels(async (user) => (await running().users.createDM(user)).id);
  const typing = createTypingIndicator((channelId) => {
    client?.rest.post(Routes.channelTyping(channelId)).catch((error: unknown) => {
      logger.debug({ err: error, channelId }, 'discord typing failed');
    });
  });
  const catchUp = createDiscordCatchUp({ memory, logger });
  const liveness = createDiscordLiveness({
    client: () => client,
    channels: () => catchUp.channels(),
    settings: config.liveness,
    logger,
    // The supervisor logs it, shows it and starts the adapter again.
    deaf: (reason) => watcher?.('deaf', new SwitchboardError('CHANNEL_DEAF', reason)),
  });
  const messages = new DiscordMessages({
    logger,
    gate,
    // Discord hands over display names with each message: no lookup, no scope.
    names: createChannelNames({ memory, logger }),
    threads: createDiscordThreadReader({ limit: config.threadHistoryLimit, memory, logger }),
    catchUp,
    files: options.files,
    typing,
    lastMessage,
    directChannels,
    handler,
    botId,
    seen: (message) => liveness.known(message.channelId, message.id),
  });
  const answers = { config, logger, directChannels, handler };
  const outbound = { client: running, config, logger, typing, directChannels, replyTo, joinThread };
  const sender = createDiscordSender(outbound);
  const streaming = config.stream === false ? undefined : createDiscordStreaming({ ...outbound, sender });
  return {
    name: 'discord',
    async start(next) {
      onInbound = next;
      const created = createClient(config);
      client = created;
      try {
        await connectClient(created, {
          token: config.token,
          logger,
          current: () => client === created && onInbound !== undefined,
          listeners: {
            message: (message) => messages.handle(message),
            connected: () => messages.catchUp(created),
            interaction: (interaction) =>
              interaction.isChatInputCommand()
                ? handleCommand(interaction, { ...answers, commands, botId })
                : handleInteraction(interaction, answers),
            connection: (event, error) => watcher?.(event, error),
            dispatched: () => liveness.arrived(),
          },
        });
      } catch (error) {
        if (client === created) client = undefined;
        throw error;
      }
      liveness.start();
      await registerCommands({ client, commands, guilds: config.guilds, logger });
    },
    watch(listener) {
      watcher = listener;
    },
    // discord.js turns a 401 from Discord into its TokenInvalid error.
    tokenRefused: (error) => (error as { code?: unknown } | undefined)?.code === 'TokenInvalid',
    async stop() {
      onInbound = undefined;
      liveness.stop();
      typing.stopAll();
      const active = client;
      client = undefined;
      await active?.destroy();
    },
    send: (route, message) =>
      streaming === undefined ? sender.post(route, message) : streaming.send(route, message),
    ...(streaming === undefined ? {} : { sendDelta: streaming.sendDelta, sendStatus: streaming.sendStatus }),
    sendFile: (route, file) => sender.attach(route, file),
  };
}
