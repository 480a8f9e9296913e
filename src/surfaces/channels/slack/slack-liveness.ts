import type { App } from '@slack/bolt';
import type { Logger } from '../../../base/logging/index.js';
import {
  createLivenessWatch,
  type LivenessSettings,
  type LivenessWatch,
  recentChannels,
  type Unheard,
} from '../liveness.js';
import type { ChannelMemory } from '../memory.js';
import type { SlackIdentity } from './types.js';

/**
 * The channels a message event arrived from, and of those the ones a `message` event arrived from
 * (`hearsAll`), kept across restarts (a deaf start is found too): `{ channels, hearsAll }`; a plain
 * list (written before `hearsAll`) reads as channels that sent mentions only.
 */
const CHANNELS_KEY = 'liveness-channels';
const CHANNELS_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** The newest messages read per channel and check: the bot's own are skipped. */
const HISTORY_LIMIT = 10;

interface HistoryMessage {
  ts?: string;
  user?: string;
  bot_id?: string;
  text?: string;
}

/**
 * Socket Mode's inbound liveness (`../liveness.ts`): every envelope is a sign of life; the
 * platform's view is `conversations.history` of the channels message events arrived from (each
 * proves the app is subscribed there): a message by someone else newer than any heard there, and
 * than the watch's start, is one the connection should have delivered. Where only `app_mention`
 * events arrived so far (an app not subscribed to `message.*`, or since the process started), only
 * a message mentioning the bot is: chatter Slack never sends is not evidence. Slack delivers an
 * event it saw no ack for again on the next connection, so the missed message is answered after
 * the reconnect.
 */
export function createSlackLiveness(options: {
  client: App['client'];
  memory: ChannelMemory;
  settings: LivenessSettings | undefined;
  identity(): SlackIdentity;
  logger: Logger;
  deaf(reason: string): void;
}): LivenessWatch & { envelope(body: unknown): void } {
  const { client, memory, logger } = options;
  const channels = recentChannels();
  /** The newest message `ts` heard per channel (Slack's clock, as seconds). */
  const newest = new Map<string, number>();
  /** Channels a `message` event arrived from: every message there is sent, not only mentions. */
  const hearsAll = new Set<string>();
  let startedAt = Date.now() / 1000;
  let loaded: Promise<void> | undefined;
  const load = () => {
    loaded ??= memory
      .get(CHANNELS_KEY)
      .then((raw) => {
        const kept = JSON.parse(raw ?? '[]') as string[] | { channels: string[]; hearsAll: string[] };
        const [listed, all] = Array.isArray(kept) ? [kept, []] : [kept.channels, kept.hearsAll];
        for (const channel of [...listed].reverse()) channels.heard(channel);
        for (const channel of all) hearsAll.add(channel);
      })
      .catch((error: unknown) => logger.warn({ err: error }, 'slack liveness channels could not be read'));
    return loaded;
  };
  const save = () => {
    const list = channels.list();
    const kept = { channels: list, hearsAll: list.filter((channel) => hearsAll.has(channel)) };
    return memory
      .set(CHANNELS_KEY, JSON.stringify(kept), CHANNELS_TTL_MS)
      .catch((error: unknown) => logger.warn({ err: error }, 'slack liveness channels could not be written'));
  };
  const unheardIn = async (channel: string): Promise<Unheard | undefined> => {
    const { botUserId, botId } = options.identity();
    const answer = await client.conversations.history({ channel, limit: HISTORY_LIMIT });
    const after = Math.max(newest.get(channel) ?? 0, startedAt);
    const missed = ((answer.messages ?? []) as HistoryMessage[]).find(
      (message) =>
        message.ts !== undefined &&
        Number(message.ts) > after &&
        (message.user === undefined || message.user !== botUserId) &&
        (message.bot_id === undefined || message.bot_id !== botId) &&
        (hearsAll.has(channel) || message.text?.includes(`<@${botUserId}>`) === true),
    );
    return missed?.ts === undefined ? undefined : { channelId: channel, messageId: missed.ts };
  };
  const watch = createLivenessWatch({
    settings: options.settings,
    platform: 'Slack',
    logger,
    deaf: options.deaf,
    async probe() {
      await load();
      for (const channel of channels.list()) {
        const found = await unheardIn(channel).catch((error: unknown) => {
          logger.debug({ err: error, channel }, 'slack liveness: channel history not read');
          return undefined;
        });
        if (found !== undefined) return found;
      }
      return undefined;
    },
  });
  return {
    ...watch,
    start() {
      startedAt = Date.now() / 1000;
      void load();
      watch.start();
    },
    envelope(body) {
      watch.arrived();
      const payload = body as { event?: { type?: unknown; channel?: unknown; ts?: unknown } } | undefined;
      const event = payload?.event;
      if (event?.type !== 'message' && event?.type !== 'app_mention') return;
      if (typeof event.channel !== 'string' || typeof event.ts !== 'string') return;
      newest.set(event.channel, Math.max(newest.get(event.channel) ?? 0, Number(event.ts)));
      const firstMessageEvent = event.type === 'message' && !hearsAll.has(event.channel);
      if (event.type === 'message') hearsAll.add(event.channel);
      if (channels.heard(event.channel) || firstMessageEvent) void load().then(save);
    },
  };
}
