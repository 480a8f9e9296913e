import type { Client, Message } from 'discord.js';
import type { LRUCache } from 'lru-cache';
import type { Logger } from '../../../base/logging/index.js';
import type { InboundHandler } from '../../../base/messages/index.js';
import type { DirectChannels } from '../direct-channels.js';
import type { ChannelNames } from '../names.js';
import type { InboundFileStore } from '../types.js';
import type { DiscordCatchUp } from './catch-up.js';
import { withDiscordFiles } from './discord-files.js';
import type { DiscordThreadReader } from './discord-thread.js';
import type { DiscordGate } from './gate.js';
import { routeKey, toInbound } from './inbound.js';
import type { TypingIndicator } from './typing.js';

export interface DiscordMessagesOptions {
  logger: Logger;
  gate: DiscordGate;
  /** Keeps the author's display name and the channel's name for the control UI. */
  names?: ChannelNames;
  /** Reads a thread's earlier messages when the bot is first mentioned there. */
  threads: DiscordThreadReader;
  /** Where each active channel is read from on a (re)connect. */
  catchUp: DiscordCatchUp;
  /** Where attachments are saved; without it they are ignored. */
  files: InboundFileStore | undefined;
  typing: TypingIndicator;
  /** The last heard message per route key, which replies refer to (written here). */
  lastMessage: LRUCache<string, string>;
  directChannels: DirectChannels;
  /** The router's dispatch while the adapter runs; undefined while it is stopped. */
  handler(): InboundHandler | undefined;
  /** The bot's user id, once logged in. */
  botId(): string | undefined;
  /** Every message that comes in, live or read back, before anything else (the liveness watch). */
  seen?(message: Message): void;
}

/**
 * Heard messages to the router: live ones (`messageCreate`) and those a (re)connect reads back
 * (`catch-up.ts`), each gated once, with typing shown until its turn ends. A message counts as
 * answered only once the router stored it.
 */
export class DiscordMessages {
  readonly #options: DiscordMessagesOptions;

  constructor(options: DiscordMessagesOptions) {
    this.#options = options;
  }

  /**
   * A heard message goes to the handler, with typing shown until its turn ends. `stored` is called
   * once the router stored it (or it was not for the bot, or could not be stored).
   */
  async handle(message: Message, options: { redelivery?: boolean; stored?: () => void } = {}): Promise<void> {
    const { gate, catchUp, threads, typing, logger } = this.#options;
    this.#options.seen?.(message);
    const botId = this.#options.botId();
    if (botId === undefined || this.#options.handler() === undefined) return options.stored?.();
    catchUp.arrived(message);
    let taken = false;
    let facts: Awaited<ReturnType<DiscordGate['admit']>>;
    try {
      facts = await gate.admit(message, botId);
    } finally {
      if (facts === undefined) {
        catchUp.settled(message, false);
        options.stored?.();
      }
    }
    const handler = this.#options.handler();
    if (facts === undefined) return;
    if (handler === undefined) return void gate.dropped(message.id);
    if (facts.pairing) {
      await this.#pairing(handler, message, facts, botId);
      return options.stored?.();
    }
    const [context, withFiles] = await Promise.all([
      threads.earlier(message, facts.threadId, botId),
      withDiscordFiles({ files: this.#options.files, logger }, message, toInbound(message, facts, botId)),
    ]);
    const inbound = context.length > 0 ? { ...withFiles, context } : withFiles;
    const key = routeKey(inbound);
    this.#options.lastMessage.set(key, message.id);
    if (inbound.chatType === 'direct') this.#options.directChannels.learn(facts.authorId, message.channelId);
    this.#options.names?.keep(namesOf(message, facts));
    typing.hold(key, message.channelId);
    const threadId = facts.threadId;
    try {
      await handler(inbound, {
        ...(options.redelivery ? { redelivery: true } : {}),
        accepted: () => {
          taken = true;
          void gate.taken(message.id);
          catchUp.settled(message, true);
          options.stored?.();
          if (threadId !== undefined) void threads.heard(threadId);
        },
      });
    } catch (error) {
      if (!taken) gate.dropped(message.id);
      logger.error({ err: error, route: key, messageId: message.id }, 'discord message was not handled');
    } finally {
      options.stored?.();
      typing.release(key);
    }
  }

  /**
   * An unknown sender's direct message, for a pairing code: its text only (no files, no typing),
   * marked `unknownSender` so the router answers with the code and nothing else.
   */
  async #pairing(
    handler: InboundHandler,
    message: Message,
    facts: NonNullable<Awaited<ReturnType<DiscordGate['admit']>>>,
    botId: string,
  ): Promise<void> {
    const { gate, catchUp, logger } = this.#options;
    const inbound = { ...toInbound(message, facts, botId), unknownSender: true };
    this.#options.directChannels.learn(facts.authorId, message.channelId);
    // The code is posted as a reply to the message that asked.
    this.#options.lastMessage.set(routeKey(inbound), message.id);
    let taken = false;
    try {
      await handler(inbound, {
        accepted: () => {
          taken = true;
          void gate.taken(message.id);
          catchUp.settled(message, true);
        },
      });
    } catch (error) {
      if (!taken) gate.dropped(message.id);
      logger.error({ err: error, messageId: message.id }, 'discord pairing message was not handled');
    }
  }

  /**
   * On every (re)connect: each active channel's messages after the last one seen go to the
   * handler as redeliveries (the router does not store one twice), one at a time, each once stored.
   */
  async catchUp(client: Client): Promise<void> {
    await this.#options.catchUp.read(
      client,
      (message) =>
        new Promise<void>((stored) => {
          void this.handle(message, { redelivery: true, stored });
        }),
    );
  }
}

/** The names Discord hands over with a message: the author's display name, the channel's name. */
function namesOf(
  message: Message,
  facts: { authorId: string; channelId: string; guildId?: string | undefined },
) {
  const author = message.member?.displayName ?? message.author.globalName ?? message.author.username;
  const channel = message.channel.isThread() ? message.channel.parent : message.channel;
  const channelName =
    channel && 'name' in channel && typeof channel.name === 'string' ? channel.name : undefined;
  return {
    user: { id: facts.authorId, name: author },
    ...(facts.guildId !== undefined && channelName
      ? { chat: { id: facts.channelId, name: `#${channelName}` } }
      : {}),
  };
}
