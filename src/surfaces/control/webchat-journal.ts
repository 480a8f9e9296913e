import type { KeyValueNamespace, NamespaceIndex, Store } from '../../records/store/index.js';
import type { WebchatJournal, WebchatShown } from '../channels/index.js';

/** One kept entry: what the chat showed, and the answer that replaced its buttons. */
export interface JournalEntry extends WebchatShown {
  decision?: string;
}

/** The most entries one history page reads from the journal. */
const MAX_READ = 200;

/** One list per chat (`<user>/<thread>`), by time. One object: a store compares the index it is opened with. */
const JOURNAL_INDEX: NamespaceIndex<JournalEntry> = {
  group: (key) => key.slice(0, key.lastIndexOf('/')),
  order: (_key, entry) => Date.parse(entry.at),
};

/** The list of `user`'s chat in `thread` (names never hold a `/`: the API's pattern). */
const chatOf = (user: string, thread: string | undefined) => `${user}/${thread ?? ''}`;

export interface WebchatJournalReader {
  /**
   * The entries of `user`'s chat in `thread` with `from <= at < to` (ms; open ends when absent),
   * oldest first: the newest `limit` (at most 200) of them.
   */
  read(
    user: string,
    thread: string | undefined,
    window: { from?: number; to?: number; limit?: number },
  ): Promise<JournalEntry[]>;
}

/**
 * The web chat journal (the store's `webchat-journal` namespace): what the chat page showed that
 * the session's transcript does not keep (typed commands and their answers, approval requests
 * and the decisions that replaced their buttons), so a reload shows them again. Text is scrubbed
 * of secret values before it is written.
 */
export function createWebchatJournal(options: {
  store: Store;
  scrub(text: string): string;
}): WebchatJournal & WebchatJournalReader {
  const { scrub } = options;
  const entries: KeyValueNamespace<JournalEntry> = options.store.namespace<JournalEntry>('webchat-journal', {
    index: JOURNAL_INDEX,
  });
  const keyOf = (user: string, thread: string | undefined, id: string) => `${chatOf(user, thread)}/${id}`;
  return {
    async keep(user, thread, entry) {
      const key = keyOf(user, thread, entry.id);
      await entries.set(key, { ...entry, text: scrub(entry.text) });
    },
    async decide(user, thread, id, text) {
      const key = keyOf(user, thread, id);
      const entry = await entries.get(key);
      if (!entry) return;
      const { actions: _answered, ...rest } = entry;
      await entries.set(key, { ...rest, decision: scrub(text) });
    },
    async read(user, thread, window) {
      const limit = Math.min(window.limit ?? MAX_READ, MAX_READ);
      // A page reads down from the highest order: start just below `to`.
      const after = window.to === undefined ? {} : { after: { order: window.to, key: '' } };
      const page = await entries.page({ group: chatOf(user, thread), limit, ...after });
      return page.entries
        .filter((entry) => window.from === undefined || entry.order >= window.from)
        .map((entry) => entry.value)
        .reverse();
    },
  };
}
