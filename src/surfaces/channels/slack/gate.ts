import type { Logger } from '../../../base/logging/index.js';
import { botLimitMessage, botReplyMessage, createBotTurnLimit } from '../bot-turns.js';
import { type ChannelMemory, createRecall } from '../memory.js';
import { fromBot, isBotReplyToUs, pairingCandidate, type SlackEventFacts, shouldHear } from './hear.js';
import type { RawEventBody, RawMessageEvent, SlackConfig } from './types.js';

/** Slack retries a delivery for up to about an hour; a day covers that and a restart in between. */
const ANSWERED_TTL_MS = 24 * 60 * 60 * 1000;
/** A thread the bot took part in is still its own after a month without a word. */
const THREAD_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** How many event ids, message ids and threads this process also keeps at hand. */
const RECENT = 5000;

export interface SlackGate {
  /**
   * Whether an event starts a turn (`heard`): heard (`shouldHear`), not answered before (by event
   * id and by message, here or before a restart), and not one of two bots answering each other;
   * or is an unknown sender's direct message passed on for a pairing code (`pairing`,
   * `pairingCandidate`); else false. Marks the event in this process only: call `taken` once the
   * message is stored.
   */
  admit(
    raw: RawMessageEvent,
    body: RawEventBody,
    mentionEvent: boolean,
    identity: { botUserId: string | undefined; botId: string | undefined },
  ): Promise<'heard' | 'pairing' | false>;
  /**
   * The event's message is stored: the store remembers the event and the message, so a delivery
   * of either after a restart is not answered again. Written after the message, never before: a
   * crash in between leaves Slack's redelivery to the inbox's check (see DispatchOptions), where
   * the other order would drop it as answered.
   */
  taken(raw: RawMessageEvent, body: RawEventBody): Promise<void>;
  /** The event's message could not be stored: Slack's redelivery of it is heard again here. */
  dropped(raw: RawMessageEvent, body: RawEventBody): void;
  /** The bot takes part in the thread `threadTs` of the Slack conversation `chatId` (it heard or posted there). */
  joinThread(chatId: string, threadTs: string): Promise<void>;
}

export function createSlackGate(options: {
  config: SlackConfig;
  memory: ChannelMemory;
  logger: Logger;
}): SlackGate {
  const { config, memory, logger } = options;
  const seen = createRecall({ memory, ttlMs: ANSWERED_TTL_MS, limit: RECENT, logger });
  const threads = createRecall({ memory, ttlMs: THREAD_TTL_MS, limit: RECENT, logger });
  const botTurns = createBotTurnLimit({ limit: config.maxBotTurns });

  /** The guards against two bots answering each other. */
  const allowedTurn = (facts: SlackEventFacts, raw: RawMessageEvent, botUserId: string | undefined) => {
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

  return {
    async admit(raw, body, mentionEvent, identity) {
      const { eventKey, messageKey } = keysOf(raw, body);
      if (eventKey !== undefined && !seen.firstHere(eventKey)) return false;
      if (!seen.firstHere(messageKey)) return false;
      const facts = factsOf(raw, mentionEvent);
      const participating =
        raw.thread_ts !== undefined && (await threads.has(threadKey(raw.channel, raw.thread_ts)));
      const state = { ...identity, inThread: () => participating };
      const heard = shouldHear(facts, config, state);
      if (!heard && !pairingCandidate(facts, config, state)) {
        logger.debug({ channel: raw.channel, ts: raw.ts, user: raw.user }, 'slack event not heard');
        return false;
      }
      // Answered before a restart: the store remembers the event and the message.
      const oldEvent = eventKey !== undefined && (await seen.inStore(eventKey));
      if (oldEvent || (await seen.inStore(messageKey))) {
        logger.info(
          { channel: raw.channel, ts: raw.ts, eventId: body.event_id },
          'slack event already answered',
        );
        return false;
      }
      if (!heard) return 'pairing';
      return allowedTurn(facts, raw, identity.botUserId) ? 'heard' : false;
    },
    async taken(raw, body) {
      const { eventKey, messageKey } = keysOf(raw, body);
      if (eventKey !== undefined) await seen.add(eventKey);
      await seen.add(messageKey);
    },
    dropped(raw, body) {
      const { eventKey, messageKey } = keysOf(raw, body);
      if (eventKey !== undefined) seen.forgetHere(eventKey);
      seen.forgetHere(messageKey);
    },
    joinThread: (chatId, threadTs) => threads.add(threadKey(chatId, threadTs)),
  };
}

/** Slack retries a slow delivery with the same event id; a mention comes as `message` and `app_mention`. */
function keysOf(raw: RawMessageEvent, body: RawEventBody) {
  return {
    eventKey: body.event_id === undefined ? undefined : `event:${body.event_id}`,
    messageKey: `message:${raw.channel}:${raw.ts}`,
  };
}

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

const threadKey = (chatId: string, threadTs: string) => `thread:${chatId}:${threadTs}`;
