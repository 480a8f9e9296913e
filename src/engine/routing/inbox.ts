import type { DeliveryRoute } from '../../base/messages/index.js';
import type { NewTranscriptEntry, TranscriptEntry } from '../../records/sessions/index.js';
import type { Store } from '../../records/store/index.js';

/**
 * A user message that has been accepted and not yet answered. It is stored before anything else
 * happens to the message and deleted when the turn that answers it ends, so a message the gateway
 * took is answered even when a restart, a stop or a crash comes in between.
 */
export interface InboxItem {
  id: string;
  sessionKey: string;
  agentId: string;
  route: DeliveryRoute;
  /** The user entry (secrets removed), written to the transcript when its turn starts. */
  entry: NewTranscriptEntry;
  /**
   * The entry as written to the transcript: set only by earlier releases, which rewrote the item
   * when its turn started (their `attempts` counted that start already). Read at resume only.
   */
  stored?: TranscriptEntry;
  /**
   * Starts that did not end: counted at resume, when the last process had written the entry to
   * the transcript and not answered it (so a turn costs no inbox write). A message whose turns
   * keep dying with the process is given up.
   */
  attempts: number;
  /** Arrival order: milliseconds, then a counter within one process. */
  receivedAt: number;
  order: number;
}

export interface Inbox {
  /** Stores a new message; resolves once it is durable. */
  add(item: Omit<InboxItem, 'id' | 'attempts' | 'receivedAt' | 'order'>): Promise<InboxItem>;
  /** Rewrites an item (its `attempts`, at resume). */
  update(item: InboxItem): Promise<void>;
  /** Forgets an answered (or dropped) message. */
  remove(id: string): Promise<void>;
  /** Every waiting message, in arrival order. */
  list(): Promise<InboxItem[]>;
}

export function createInbox(options: { store: Store; now?: () => number }): Inbox {
  const items = options.store.namespace<InboxItem>('inbox');
  const now = options.now ?? Date.now;
  let counter = 0;
  return {
    async add(fields) {
      counter += 1;
      const item: InboxItem = {
        ...fields,
        id: crypto.randomUUID(),
        attempts: 0,
        receivedAt: now(),
        order: counter,
      };
      await items.set(item.id, item);
      return item;
    },
    update: (item) => items.set(item.id, item),
    remove: (id) => items.delete(id),
    async list() {
      const all: InboxItem[] = [];
      for await (const [, item] of items.entries()) all.push(item);
      return all.sort((a, b) => a.receivedAt - b.receivedAt || a.order - b.order);
    },
  };
}
