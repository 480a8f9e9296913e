import pTimeout from 'p-timeout';
import type { Logger } from '../../base/logging/index.js';
import {
  type RunStore,
  type SessionStore,
  subagentDepth,
  type TranscriptEntry,
} from '../../records/sessions/index.js';
import type { KeyValueNamespace, Store } from '../../records/store/index.js';
import {
  ANNOUNCEMENT_SENDER,
  type Announcement,
  announcementId,
  announcementText,
  type PendingAnnouncement,
} from './announcements.js';
import type { SubagentTurns, TurnReport } from './types.js';

export interface AnnouncerOptions {
  store: Store;
  sessions: SessionStore;
  /** The turn runs, to tell whether the turn that took an entry ended. */
  runs: RunStore;
  turns: SubagentTurns;
  logger: Logger;
}

/**
 * Durable announcements: each is stored as pending before it is delivered, and stays pending until
 * the turn that answers it has ended. A delivery that a stop cut short (its turn was dropped from
 * the queue or aborted by the stop, or the process died) is delivered again by the next start's
 * `resume`: the entry, already in the transcript, is queued again, not appended twice (it carries
 * the announcement id as its message id, by which it is found), unless a turn that took it has
 * ended (the process died before the record was cleared): then it is only cleared.
 */
export class Announcer {
  readonly #options: AnnouncerOptions;
  readonly #pending: KeyValueNamespace<PendingAnnouncement>;
  /** The bookkeeping of each announcement turn under way (it resolves once its record is settled). */
  readonly #answering = new Set<Promise<void>>();
  /** Set by `close`: from then on a turn the stop interrupts leaves its announcement pending. */
  #closing = false;

  constructor(options: AnnouncerOptions) {
    this.#options = options;
    this.#pending = options.store.namespace('subagent-announcements');
  }

  /** Stores the announcement (before the run's end is written, so that a crash cannot lose it). */
  async prepare(
    requesterSessionKey: string,
    announcement: Announcement,
    chargedTo?: string,
  ): Promise<PendingAnnouncement> {
    const item: PendingAnnouncement = {
      id: announcementId(announcement.runId),
      requesterSessionKey,
      announcement,
      ...(chargedTo === undefined ? {} : { chargedTo }),
    };
    await this.#pending.set(item.id, item);
    return item;
  }

  /** Delivers a stored announcement; a failure leaves it pending for the next start. */
  async send(item: PendingAnnouncement): Promise<void> {
    await this.#deliver(item).catch((error: unknown) =>
      this.#options.logger.warn(
        { err: error, run: item.announcement.runId },
        'announcement not delivered; it stays pending',
      ),
    );
  }

  /** The announcements the last process left unanswered. */
  async pendingItems(): Promise<PendingAnnouncement[]> {
    const items: PendingAnnouncement[] = [];
    for await (const [, item] of this.#pending.entries()) items.push(item);
    return items;
  }

  close(): void {
    this.#closing = true;
  }

  /**
   * Resolves once every announcement turn under way has ended and its record is settled, or after
   * `limitMs` (a turn that ignores the stop must not hold it: its announcement stays pending).
   */
  async settled(limitMs: number): Promise<void> {
    const deadline = Date.now() + limitMs;
    while (this.#answering.size > 0 && Date.now() < deadline) {
      const milliseconds = Math.max(0, deadline - Date.now());
      await pTimeout(Promise.all([...this.#answering]), { milliseconds, fallback: () => undefined });
    }
  }

  async #deliver(item: PendingAnnouncement): Promise<void> {
    const { sessions, turns, logger } = this.#options;
    const record = await sessions.get(item.requesterSessionKey);
    if (!record) {
      logger.warn({ session: item.requesterSessionKey }, 'announcement for an unknown session dropped');
      await this.#pending.delete(item.id);
      return;
    }
    const existing = await this.#appendedEntry(item);
    if (existing && (await this.#answered(record.key, existing))) {
      await this.#pending.delete(item.id);
      return;
    }
    const { done } = await turns.startTurn({
      sessionKey: record.key,
      agentId: record.agentId,
      route: record.route,
      entry: { role: 'system', text: announcementText(item.announcement), messageId: item.id },
      ...(existing ? { appended: existing } : {}),
      senderId: ANNOUNCEMENT_SENDER,
      ...(item.chargedTo === undefined ? {} : { chargedTo: item.chargedTo }),
      depth: subagentDepth(record.key),
    });
    this.#clearWhenAnswered(item, done);
  }

  /** The router writes the entry when the turn takes it: found by its message id, if it got that far. */
  async #appendedEntry(item: PendingAnnouncement) {
    const tail = await this.#options.sessions.transcript(item.requesterSessionKey, { last: 50 });
    return tail.find((entry) => entry.messageId === item.id);
  }

  /** Whether the turn that took the entry (the first to write after it) has ended, other than by a stop. */
  async #answered(sessionKey: string, entry: TranscriptEntry): Promise<boolean> {
    const { sessions, runs } = this.#options;
    const record = await sessions.get(sessionKey);
    const after = await sessions.transcript(sessionKey, {
      last: Math.max(0, (record?.transcriptLength ?? 0) - entry.seq - 1),
    });
    const reply = after.find((later) => later.seq > entry.seq && later.role === 'assistant' && later.runId);
    const run = reply?.runId === undefined ? undefined : await runs.get(reply.runId);
    return run !== undefined && run.status !== 'running' && run.status !== 'interrupted';
  }

  /** Once the turn ended, clears the announcement: it was answered, unless the stop aborted the turn. */
  #clearWhenAnswered(item: PendingAnnouncement, done: Promise<TurnReport>): void {
    const { logger } = this.#options;
    const run = item.announcement.runId;
    const settled = done.then(
      async (result) => {
        if (this.#closing && result.status === 'interrupted') return;
        await this.#pending.delete(item.id);
      },
      (error: unknown) => logger.warn({ err: error, run }, 'announcement turn not run; it stays pending'),
    );
    const tracked = settled.catch((error: unknown) =>
      logger.warn({ err: error, run }, 'answered announcement not cleared'),
    );
    this.#answering.add(tracked);
    void tracked.finally(() => this.#answering.delete(tracked));
  }
}
