import type { Message } from 'discord.js';
import type { Logger } from '../../../base/logging/index.js';
import { botLimitMessage, botReplyMessage, createBotTurnLimit } from '../bot-turns.js';
import { type ChannelMemory, createRecall } from '../memory.js';
import { describeMessage } from './inbound.js';
import { type DiscordConfig, type HearCandidate, pairingCandidate, shouldHear } from './should-hear.js';

/** How many message ids and threads this process also keeps at hand. */
const RECENT = 5000;
/** A message delivered twice (a resume replays events) comes again within minutes; a day is ample. */
const SEEN_TTL_MS = 24 * 60 * 60 * 1000;
/** A thread the bot took part in is still its own after a month without a word. */
const THREAD_TTL_MS = 30 * 24 * 60 * 60 * 1000;
const NO_THREADS: ReadonlySet<string> = new Set();

export interface DiscordGate {
  /**
   * The facts of `message` when it starts a turn: heard (`shouldHear`), for the first time (here,
   * or stored before a restart), and not one of two bots answering each other; with `pairing`
   * when it is an unknown sender's direct message passed on for a pairing code
   * (`pairingCandidate`); else undefined. Marks it in this process only: call `taken` once it is
   * stored.
   */
  admit(message: Message, botId: string): Promise<(HearCandidate & { pairing?: true }) | undefined>;
  /**
   * The message is stored (the router's `accepted`): the store remembers it, so neither a replay
   * nor a catch-up after a restart hands it on again. Written after the message, never before:
   * a process that dies in between leaves the catch-up to the router's redelivery check.
   */
  taken(messageId: string): Promise<void>;
  /** The message could not be stored: a catch-up may hand it on again. */
  dropped(messageId: string): void;
  /** The bot takes part in `threadId` (it heard or posted there). */
  joinThread(threadId: string): Promise<void>;
}

export function createDiscordGate(options: {
  config: DiscordConfig;
  memory: ChannelMemory;
  logger: Logger;
}): DiscordGate {
  const { config, memory, logger } = options;
  const seen = createRecall({ memory, ttlMs: SEEN_TTL_MS, limit: RECENT, logger });
  const threads = createRecall({ memory, ttlMs: THREAD_TTL_MS, limit: RECENT, logger });
  const botTurns = createBotTurnLimit({ limit: config.maxBotTurns });

  /** The guards against two bots answering each other. */
  const allowedTurn = (facts: HearCandidate, messageId: string): boolean => {
    if (facts.authorIsBot && facts.repliesToBot === true) {
      logger.info({ messageId, authorId: facts.authorId }, botReplyMessage('discord'));
      return false;
    }
    const conversation = `${facts.guildId ?? 'direct'}:${facts.threadId ?? facts.channelId}`;
    if (botTurns.allow(conversation, facts.authorIsBot)) return true;
    logger.info({ messageId, authorId: facts.authorId }, botLimitMessage('discord', config.maxBotTurns));
    return false;
  };

  return {
    async admit(message, botId) {
      const messageKey = `message:${message.id}`;
      if (!seen.firstHere(messageKey)) return undefined;
      const facts = await describeMessage(message, botId);
      const thread = facts.threadId;
      const participating = thread !== undefined && (await threads.has(`thread:${thread}`));
      const activeThreads = participating ? new Set([thread]) : NO_THREADS;
      const heard = shouldHear(facts, config, { botId, activeThreads });
      if (!heard && !pairingCandidate(facts, config, { botId, activeThreads })) return undefined;
      // Stored before a restart (the store remembers): not again.
      if (await seen.inStore(messageKey)) {
        logger.info({ messageId: message.id }, 'discord message already answered');
        return undefined;
      }
      if (!heard) return { ...facts, pairing: true };
      if (thread !== undefined) await threads.add(`thread:${thread}`);
      return allowedTurn(facts, message.id) ? facts : undefined;
    },
    taken: (messageId) => seen.add(`message:${messageId}`),
    dropped: (messageId) => seen.forgetHere(`message:${messageId}`),
    joinThread: (threadId) => threads.add(`thread:${threadId}`),
  };
}
