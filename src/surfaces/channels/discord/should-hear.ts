import type { Config } from '../../../base/config/index.js';
import { wantsPairing } from '../pairing.js';

/** `channels.discord` after defaults. */
export type DiscordConfig = NonNullable<Config['channels']['discord']>;

/** Who the bot hears: the access keys of `channels.discord`. */
export type HearSettings = Pick<
  DiscordConfig,
  'guilds' | 'channels' | 'requireMention' | 'dmPolicy' | 'allowFrom' | 'allowBots' | 'pairing'
>;

/** The facts about a Discord message that decide whether it is heard, all platform ids. */
export interface HearCandidate {
  authorId: string;
  authorIsBot: boolean;
  /** Absent for direct messages. */
  guildId?: string | undefined;
  /** The channel, or for a message in a thread the thread's parent channel. */
  channelId: string;
  threadId?: string | undefined;
  /** The bot's user was mentioned by the author (a reply's ping is not a mention). */
  mentionsBot: boolean;
  /** The message is a reply to one of the bot's messages. */
  repliesToBot?: boolean | undefined;
}

export interface HearState {
  botId: string;
  /** Threads the bot takes part in (it was mentioned or posted there). */
  activeThreads: ReadonlySet<string>;
}

/**
 * Whether the adapter passes a message on. Pure: everything it needs is in its arguments.
 * The bot's own messages are never heard; other bots' only with `allowBots`. Direct messages
 * follow `dmPolicy`/`allowFrom`; guild messages the `guilds` and `channels` allowlists (when
 * non-empty), then need a mention unless `requireMention` (per-channel override) is off or the
 * message is in a thread the bot takes part in.
 */
export function shouldHear(message: HearCandidate, settings: HearSettings, state: HearState): boolean {
  if (message.authorId === state.botId) return false;
  if (message.authorIsBot && !settings.allowBots) return false;
  if (message.guildId === undefined) {
    if (settings.dmPolicy === 'open') return true;
    if (settings.dmPolicy === 'disabled') return false;
    return settings.allowFrom.includes(message.authorId);
  }
  if (settings.guilds.length > 0 && !settings.guilds.includes(message.guildId)) return false;
  const listed = Object.keys(settings.channels);
  // A thread is allowed through its parent channel, or when it is listed itself.
  const channelSettings =
    (message.threadId === undefined ? undefined : settings.channels[message.threadId]) ??
    settings.channels[message.channelId];
  if (listed.length > 0 && channelSettings === undefined) return false;
  if (message.mentionsBot) return true;
  if (message.threadId !== undefined && state.activeThreads.has(message.threadId)) return true;
  return !(channelSettings?.requireMention ?? settings.requireMention);
}

/**
 * Whether a message `shouldHear` refused is a direct message to pass on for pairing: by a person
 * (not a bot) whom `wantsPairing` (`../pairing.ts`) does not know.
 */
export function pairingCandidate(message: HearCandidate, settings: HearSettings, state: HearState): boolean {
  if (message.guildId !== undefined || message.authorIsBot || message.authorId === state.botId) return false;
  return wantsPairing(settings, message.authorId);
}
