import type { Config } from '../../base/config/index.js';
import type { InboundMessage } from '../../base/messages/index.js';
import { type Router, sessionForMessage } from '../../engine/routing/index.js';
import { type SessionStore, subagentDepth, type TranscriptEntry } from '../../records/sessions/index.js';
import type { WebchatHistoryMessage } from './contracts.js';
import type { WebchatHistoryPort } from './routes/webchat-history.js';
import type { JournalEntry, WebchatJournalReader } from './webchat-journal.js';

/** Raw transcript entries read per step while filling a history page (tool rounds are skipped). */
const READ_STEP = 200;
/** At most this many steps per page: a page of a long tool-only stretch ends early, `next` goes on. */
const MAX_STEPS = 5;
const MAX_THREADS = 100;
/** A thread's title is read from its first entries (its first message and what came with it). */
const TITLE_ENTRIES = 4;
const TITLE_WORDS = 6;
const TITLE_CHARS = 48;

/** The first words of a message, one line, cut with an ellipsis. */
export function titleOf(text: string): string {
  const words = text.replace(/\s+/g, ' ').trim().split(' ');
  const title = words.slice(0, TITLE_WORDS).join(' ');
  const cut = title.length > TITLE_CHARS ? `${title.slice(0, TITLE_CHARS - 1).trimEnd()}…` : title;
  return words.length > TITLE_WORDS && !cut.endsWith('…') ? `${cut}…` : cut;
}

/**
 * The web chat history the chat page shows: a user's web chat sessions (one per thread) and a
 * thread's user and assistant messages. The session of (user, thread) is the one the router would
 * use for the user's next message there: the agent its bindings choose, the chat's key.
 */
export function createWebchatHistory(options: {
  sessions: SessionStore;
  router: Pick<Router, 'sessionStatus'>;
  config: Pick<Config, 'bindings' | 'defaultAgent'>;
  /** The log's secret scrubber: an entry may quote a value that became a secret after it was written. */
  scrub(text: string): string;
  /** What the chat showed that the transcript does not keep (commands, approvals), merged in by time. */
  journal?: WebchatJournalReader;
}): WebchatHistoryPort {
  const { sessions, router, config, scrub, journal } = options;
  return {
    async threads(user) {
      const page = await sessions.list({
        limit: MAX_THREADS,
        where: (session) =>
          session.route.channel === 'webchat' &&
          session.route.chatId === user &&
          subagentDepth(session.key) === 0,
      });
      // One per thread: a binding change leaves an older agent's session behind; the newest wins.
      const seen = new Set<string>();
      const views = page.sessions.flatMap((record) => {
        const thread = record.route.threadId;
        if (seen.has(thread ?? '')) return [];
        seen.add(thread ?? '');
        return [
          {
            ...(thread === undefined ? {} : { thread }),
            sessionKey: record.key,
            lastActivityAt: record.lastActivityAt,
            transcriptLength: record.transcriptLength,
            status: router.sessionStatus(record.key),
          },
        ];
      });
      // A thread is named by the first words of its first message (the main chat needs no name).
      return Promise.all(
        views.map(async (view) => {
          if (view.thread === undefined) return view;
          const first = await sessions.transcript(view.sessionKey, {
            before: TITLE_ENTRIES,
            last: TITLE_ENTRIES,
          });
          const typed = first.find((entry) => entry.role === 'user' && entry.text.trim() !== '');
          return typed ? { ...view, title: titleOf(scrub(typed.text)) } : view;
        }),
      );
    },
    async history({ user, thread, last, before }) {
      const sessionKey = webchatSessionKey(config, user, thread);
      const status = router.sessionStatus(sessionKey);
      const {
        messages: page,
        next,
        sliced,
        oldestAt,
      } = await readMessages(sessions, scrub, {
        sessionKey,
        last,
        ...(before === undefined ? {} : { before }),
      });
      if (!journal) return { sessionKey, status, messages: page, ...(next ? { next } : {}) };
      // The journal's entries of the same stretch of time: from the oldest entry of this page (all
      // older ones on the last page: commands typed before the session began, or before a `/new`)
      // to the entry the newer page began at.
      const from = next ? (sliced ? page[0]?.at : oldestAt) : undefined;
      const newer =
        before === undefined
          ? undefined
          : await sessions.transcript(sessionKey, { last: 1, before: before + 1 });
      const to = newer?.[0]?.at;
      const kept = await journal.read(user, thread, {
        ...(from === undefined ? {} : { from: Date.parse(from) }),
        ...(to === undefined ? {} : { to: Date.parse(to) }),
      });
      const merged = mergeByTime(
        page,
        kept.map((entry) => shownMessage(entry, scrub)),
      );
      return { sessionKey, status, messages: merged, ...(next ? { next } : {}) };
    },
  };
}

/**
 * The last `last` messages of a session below `before` (`messageOf`: what a chat shows), oldest
 * first, read back in steps past tool rounds; `next` is the `before` of the page further back.
 */
export async function readMessages(
  sessions: Pick<SessionStore, 'transcript'>,
  scrub: (text: string) => string,
  read: { sessionKey: string; last: number; before?: number },
): Promise<{ messages: WebchatHistoryMessage[]; next?: number; sliced: boolean; oldestAt?: string }> {
  const { sessionKey, last, before } = read;
  const messages: WebchatHistoryMessage[] = [];
  let below = before;
  /** When the oldest entry read was written: where this page's time ends when older ones remain. */
  let oldestAt: string | undefined;
  for (let step = 0; step < MAX_STEPS && messages.length < last && below !== 0; step += 1) {
    const entries = await sessions.transcript(sessionKey, {
      last: READ_STEP,
      ...(below === undefined ? {} : { before: below }),
    });
    if (entries.length === 0) {
      below = 0;
      break;
    }
    messages.unshift(...entries.flatMap((entry) => messageOf(entry, scrub)));
    below = entries[0]?.seq ?? 0;
    oldestAt = entries[0]?.at;
  }
  // More than asked for: the page is the newest `last`, and the rest is the next page's.
  const page = messages.slice(-last);
  const sliced = page.length < messages.length;
  const next = sliced ? page[0]?.seq : below;
  return {
    messages: page,
    sliced,
    ...(next ? { next } : {}),
    ...(oldestAt === undefined ? {} : { oldestAt }),
  };
}

/**
 * What the chat shows of an entry: typed messages, answers with text, and the gateway's notes to
 * the chat (system entries: restart notes, a run that failed); tool rounds, compaction summaries,
 * a thread's context and sub-agent announcements (written for the model) are left out.
 */
function messageOf(entry: TranscriptEntry, scrub: (text: string) => string): WebchatHistoryMessage[] {
  if (entry.role === 'tool' || entry.text.trim() === '') return [];
  if (entry.role === 'system' && !isNoteToChat(entry)) return [];
  return [{ seq: entry.seq, at: entry.at, role: entry.role, text: scrub(entry.text) }];
}

const FOR_THE_MODEL = /^(context|announcement):/;

function isNoteToChat(entry: TranscriptEntry): boolean {
  return entry.compaction === undefined && !FOR_THE_MODEL.test(entry.messageId ?? '');
}

/** A journal entry as a history message: a typed command, its answer, an approval with its buttons or decision. */
function shownMessage(entry: JournalEntry, scrub: (text: string) => string): WebchatHistoryMessage {
  const { id, at, role, text, origin, actions, decision } = entry;
  return {
    id,
    at,
    role,
    text: scrub(text),
    origin,
    ...(actions?.length && decision === undefined ? { actions } : {}),
    ...(decision === undefined ? {} : { decision: scrub(decision) }),
  };
}

/** Transcript messages and journal entries in one list by time; at the same time, the transcript's first. */
function mergeByTime(
  messages: WebchatHistoryMessage[],
  kept: WebchatHistoryMessage[],
): WebchatHistoryMessage[] {
  if (kept.length === 0) return messages;
  const time = (message: WebchatHistoryMessage) => Date.parse(message.at);
  const merged: WebchatHistoryMessage[] = [];
  let index = 0;
  for (const message of messages) {
    while (index < kept.length && time(kept[index] as WebchatHistoryMessage) < time(message))
      merged.push(kept[index++] as WebchatHistoryMessage);
    merged.push(message);
  }
  return [...merged, ...kept.slice(index)];
}

/** The session a web chat message of `user` in `thread` lands in, as the router picks it. */
export function webchatSessionKey(
  config: Pick<Config, 'bindings' | 'defaultAgent'>,
  user: string,
  thread: string | undefined,
): string {
  const message: InboundMessage = {
    channel: 'webchat',
    chatType: 'direct',
    chatId: user,
    ...(thread === undefined ? {} : { threadId: thread }),
    senderId: `webchat:${user}`,
    messageId: 'history',
    text: '',
  };
  return sessionForMessage(config, message).sessionKey;
}
