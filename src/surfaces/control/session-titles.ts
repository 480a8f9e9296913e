import type { SessionRecord, SessionStore, TranscriptEntry } from '../../records/sessions/index.js';
import { titleOf } from './webchat-history.js';

/** A session's title is read from its first entries (its first message and what came with it). */
const TITLE_ENTRIES = 4;

/**
 * The names the channels keep (Slack's `users.info` and `conversations.info`, Discord's display
 * names; `readNames` over each platform's channel memory): the app provides it.
 */
export interface NamesPort {
  /** A sender's display name (`slack:U1` → `Ann`); undefined when the platform gave none (yet). */
  user(senderId: string): Promise<string | undefined>;
  /** A chat's name on its platform (`#ops`); undefined when unknown. */
  chat(channel: string, chatId: string): Promise<string | undefined>;
}

/** What the sessions view reads to name sessions and their senders. */
export interface SessionTitles {
  /** `#ops — deploy failed on…`: the chat's name and the first words of the first message, or undefined. */
  title(record: SessionRecord): Promise<string | undefined>;
  /** The display names known of the senders of `entries`, by sender id. */
  senderNames(entries: readonly TranscriptEntry[]): Promise<Record<string, string>>;
}

export function createSessionTitles(options: {
  sessions: SessionStore;
  names: NamesPort;
  /** The log's secret scrubber: a first message may quote a value that became a secret later. */
  scrub(text: string): string;
}): SessionTitles {
  const { sessions, names, scrub } = options;
  /** Where the session talks: a platform chat's name, or the person of a direct message. */
  const place = ({ route }: SessionRecord) => {
    if (route.channel !== 'slack' && route.channel !== 'discord') return undefined;
    return route.chatType === 'direct'
      ? names.user(`${route.channel}:${route.chatId}`)
      : names.chat(route.channel, route.chatId);
  };
  const firstWords = async (record: SessionRecord) => {
    if (record.transcriptLength === 0) return undefined;
    const first = await sessions.transcript(record.key, { before: TITLE_ENTRIES, last: TITLE_ENTRIES });
    const typed = first.find((entry) => entry.role === 'user' && entry.text.trim() !== '');
    return typed && titleOf(scrub(typed.text));
  };
  return {
    async title(record) {
      const parts = await Promise.all([place(record), firstWords(record)]);
      const known = parts.filter((part) => part !== undefined && part !== '');
      return known.length === 0 ? undefined : known.join(' — ');
    },
    async senderNames(entries) {
      const senders = new Set(entries.flatMap((entry) => (entry.senderId ? [entry.senderId] : [])));
      const named = await Promise.all(
        [...senders].map(async (sender) => [sender, await names.user(sender)] as const),
      );
      return Object.fromEntries(named.filter((pair): pair is [string, string] => pair[1] !== undefined));
    },
  };
}
