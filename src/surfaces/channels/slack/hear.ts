import { wantsPairing } from '../pairing.js';

/** What `shouldHear` needs to know of a Slack `message` or `app_mention` event. */
export interface SlackEventFacts {
  /** `im` for direct messages; `channel`, `group` or `mpim` otherwise. */
  channelType: string | undefined;
  channel: string;
  user: string | undefined;
  botId: string | undefined;
  subtype: string | undefined;
  text: string;
  threadTs: string | undefined;
  /** In a thread: who wrote the thread's first message (Slack's `parent_user_id`). */
  parentUserId?: string | undefined;
  /** Delivered as `app_mention`: Slack itself says the bot was mentioned. */
  mentionEvent: boolean;
}

/** The access settings of `channels.slack` (the keys shared with Discord). */
export interface HearSettings {
  requireMention: boolean;
  channels: Record<string, { requireMention?: boolean | undefined }>;
  dmPolicy: 'allowlist' | 'open' | 'disabled';
  allowFrom: string[];
  allowBots: boolean;
  /** An unknown sender's direct message is passed on for a pairing code (`pairingCandidate`, `wantsPairing`). */
  pairing?: boolean | undefined;
}

export interface HearState {
  /** The bot's own user id (from `auth.test`); unknown before start. */
  botUserId: string | undefined;
  /** The bot's own bot id, when known. */
  botId?: string | undefined;
  /** Whether the bot takes part in the thread `threadTs` of `channel`. */
  inThread(channel: string, threadTs: string): boolean;
}

/** Message subtypes that are a person (or bot) saying something; edits, joins and deletions are not. */
const SPOKEN_SUBTYPES = new Set([undefined, 'bot_message', 'thread_broadcast', 'file_share', 'me_message']);

/** Whether the event comes from a bot (a bot user's message or a `bot_message`). */
export function fromBot(event: Pick<SlackEventFacts, 'botId' | 'subtype'>): boolean {
  return event.botId !== undefined || event.subtype === 'bot_message';
}

/**
 * Whether the event is another bot's reply to this bot: in Slack a reply is a message in the
 * thread under the message it answers, so a bot's message in a thread the bot itself began.
 */
export function isBotReplyToUs(event: SlackEventFacts, botUserId: string | undefined): boolean {
  return fromBot(event) && botUserId !== undefined && event.parentUserId === botUserId;
}

/** Whether `text` mentions the user `botUserId` (`<@U…>` or `<@U…|name>`). */
export function mentions(text: string, botUserId: string | undefined): boolean {
  return botUserId !== undefined && mentionPattern(botUserId).test(text);
}

/** `text` without mentions of the bot, trimmed. */
export function stripMention(text: string, botUserId: string | undefined): string {
  if (botUserId === undefined) return text.trim();
  return text
    .replace(mentionPattern(botUserId, 'g'), ' ')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}

/**
 * Whether the bot hears an event. Pure: identity is decided by platform ids only, never by
 * display names or text other than a `<@BOTID>` mention.
 * - never its own messages; other bots' only with `allowBots`; edits, joins and the like never;
 * - direct messages by `dmPolicy` (`allowlist`: the sender is in `allowFrom`);
 * - channels: only listed ones when `channels` is non-empty; then when mentioned, when the
 *   channel's (else the global) `requireMention` is off, or in a thread the bot takes part in.
 */
export function shouldHear(event: SlackEventFacts, settings: HearSettings, state: HearState): boolean {
  if (!SPOKEN_SUBTYPES.has(event.subtype)) return false;
  if (event.user !== undefined && event.user === state.botUserId) return false;
  if (event.botId !== undefined && state.botId !== undefined && event.botId === state.botId) return false;
  const bot = fromBot(event);
  if (bot && !settings.allowBots) return false;
  if (event.user === undefined && !bot) return false;

  if (event.channelType === 'im') {
    if (settings.dmPolicy === 'disabled') return false;
    if (settings.dmPolicy === 'open') return true;
    return event.user !== undefined && settings.allowFrom.includes(event.user);
  }

  const listed = Object.keys(settings.channels).length > 0;
  if (listed && !Object.hasOwn(settings.channels, event.channel)) return false;
  if (event.mentionEvent || mentions(event.text, state.botUserId)) return true;
  if (event.threadTs !== undefined && state.inThread(event.channel, event.threadTs)) return true;
  const requireMention = settings.channels[event.channel]?.requireMention ?? settings.requireMention;
  return !requireMention;
}

/**
 * Whether an event `shouldHear` refused is a direct message to pass on for pairing: a person (not
 * a bot) saying something, whom `wantsPairing` (`../pairing.ts`) does not know.
 */
export function pairingCandidate(event: SlackEventFacts, settings: HearSettings, state: HearState): boolean {
  if (event.channelType !== 'im' || !SPOKEN_SUBTYPES.has(event.subtype) || fromBot(event)) return false;
  return event.user !== undefined && event.user !== state.botUserId && wantsPairing(settings, event.user);
}

/** Matches `<@U…>` and `<@U…|name>` for the user `userId`. */
function mentionPattern(userId: string, flags = ''): RegExp {
  return new RegExp(`<@${userId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\|[^>]*)?>`, flags);
}
