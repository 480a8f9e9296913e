import { type Client, Routes } from 'discord.js';
import type { Logger } from '../../../base/logging/index.js';
import {
  createLivenessWatch,
  LIVENESS_CHANNELS,
  type LivenessSettings,
  type LivenessWatch,
  type Unheard,
} from '../liveness.js';

/** The newest messages read per channel and check: the bot's own are skipped. */
const HISTORY_LIMIT = 10;

interface HistoryMessage {
  id: string;
  author?: { id?: string };
}

/**
 * The gateway's inbound liveness (`../liveness.ts`). discord.js already drops a connection whose
 * heartbeats go unacknowledged; this is the other half: every dispatch is a sign of life, and the
 * platform's view is the newest messages of the channels the catch-up reads (`catch-up.ts`): a
 * message by someone else newer than its mark and than any message heard there is one the
 * connection should have dispatched. The new connection's catch-up then answers it.
 */
export function createDiscordLiveness(options: {
  client(): Client | undefined;
  /** The channels the catch-up reads, most recently active first, each with its mark. */
  channels(): Promise<Array<{ id: string; after: string }>>;
  settings: LivenessSettings | undefined;
  logger: Logger;
  deaf(reason: string): void;
}): LivenessWatch & { known(channelId: string, messageId: string): void } {
  /** The newest message id heard per channel (live, or read back by the catch-up). */
  const newest = new Map<string, bigint>();
  const unheardIn = async (client: Client, channel: { id: string; after: string }) => {
    const botId = client.user?.id;
    const found = (await client.rest.get(Routes.channelMessages(channel.id), {
      query: new URLSearchParams({ limit: String(HISTORY_LIMIT) }),
    })) as HistoryMessage[];
    const after = [BigInt(channel.after), newest.get(channel.id) ?? 0n].reduce((a, b) => (a > b ? a : b));
    const missed = found.find((message) => message.author?.id !== botId && BigInt(message.id) > after);
    return missed === undefined ? undefined : { channelId: channel.id, messageId: missed.id };
  };
  const watch = createLivenessWatch({
    settings: options.settings,
    platform: 'Discord',
    logger: options.logger,
    deaf: options.deaf,
    async probe(): Promise<Unheard | undefined> {
      const client = options.client();
      if (client === undefined) return undefined;
      for (const channel of (await options.channels()).slice(0, LIVENESS_CHANNELS)) {
        const found = await unheardIn(client, channel).catch((error: unknown) => {
          options.logger.debug({ err: error, channelId: channel.id }, 'discord liveness: channel not read');
          return undefined;
        });
        if (found !== undefined) return found;
      }
      return undefined;
    },
  });
  return {
    ...watch,
    known(channelId, messageId) {
      const id = BigInt(messageId);
      if ((newest.get(channelId) ?? 0n) < id) newest.set(channelId, id);
    },
  };
}
