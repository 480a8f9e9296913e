import type { Config } from '../../base/config/index.js';
import type { InboundMessage } from '../../base/messages/index.js';
import { type Router, sessionForMessage } from '../../engine/routing/index.js';
import { type SessionStore, subagentDepth, type TranscriptEntry } from '../../records/sessions/index.js';
import type { WebchatHistoryMessage, WebchatHistoryPort } from './routes/webchat-history.js';

/** Raw transcript entries read per step while filling a history page (tool rounds are skipped). */
const READ_STEP = 200;
/** At most this many steps per page: a page of a long tool-only stretch ends early, `next` goes on. */
const MAX_STEPS = 5;
const MAX_THREADS = 100;

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
}): WebchatHistoryPort {
  const { sessions, router, config, scrub } = options;
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
      return page.sessions.flatMap((record) => {
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
    },
    async history({ user, thread, last, before }) {
      const sessionKey = webchatSessionKey(config, user, thread);
      const status = router.sessionStatus(sessionKey);
      const messages: WebchatHistoryMessage[] = [];
      let below = before;
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
      }
      // More than asked for: the page is the newest `last`, and the rest is the next page's.
      const page = messages.slice(-last);
      const next = page.length < messages.length ? page[0]?.seq : below;
      return { sessionKey, status, messages: page, ...(next ? { next } : {}) };
    },
  };
}

/** What the chat shows of an entry: typed messages and answers with text (tool rounds are left out). */
function messageOf(entry: TranscriptEntry, scrub: (text: string) => string): WebchatHistoryMessage[] {
  if ((entry.role !== 'user' && entry.role !== 'assistant') || entry.text.trim() === '') return [];
  return [{ seq: entry.seq, at: entry.at, role: entry.role, text: scrub(entry.text) }];
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
