import pTimeout from 'p-timeout';
import type { Logger } from '../logging/index.js';

import {
  type RunStore,
  type SessionStore,
  type SubagentOutcome,
  type SubagentRun,
  subagentDepth,
  type TranscriptEntry,
} from '../sessions/index.js';
import type { KeyValueNamespace, Store } from '../store/index.js';
import type { SubagentTurns, TurnReport } from './types.js';

/** What the requester's model reads when a child ends: built by the runtime, not the model. */
export interface Announcement {
  status: SubagentOutcome['status'];
  label: string;
  result: string;
  stats: { runtimeMs: number; rounds: number; toolCalls: number };
  runId: string;
  childSessionKey: string;
  error?: string;
}

export interface PendingAnnouncement {
  id: string;
  requesterSessionKey: string;
  announcement: Announcement;
}

export const ANNOUNCEMENT_SENDER = 'system:subagents';

/** One announcement per run, so storing it twice (a retried end, a restart) keeps one. */
export const announcementId = (runId: string) => `announcement:${runId}`;

export function announcementFor(run: SubagentRun, outcome: SubagentOutcome): Announcement {
  return {
    status: outcome.status,
    label: run.label,
    result: outcome.result,
    stats: { runtimeMs: run.runtimeMs ?? 0, rounds: outcome.rounds, toolCalls: outcome.toolCalls },
    runId: run.runId,
    childSessionKey: run.childSessionKey,
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
  };
}

export function announcementText(announcement: Announcement): string {
  return `Sub-agent announcement (from the runtime, not a user): ${JSON.stringify(announcement)}`;
}

/**
 * Durable announcements: each is stored as pending before it is delivered, and stays pending until
 * the turn that answers it has ended. A delivery that a stop cut short (its turn was dropped from
 * the queue or aborted by the stop, or the process died) is delivered again by the next start's
 * `resume`: the entry, already in the transcript, is queued again, not appended twice (it carries
 * the announcement id as its message id, by which it is found), unless a turn that took it has
 * ended (the process died before the record was cleared): then it is only cleared.
 */
export function createAnnouncer(options: {
  store: Store;
  sessions: SessionStore;
  /** The turn runs, to tell whether the turn that took an entry ended. */
  runs: RunStore;
  turns: SubagentTurns;
  logger: Logger;
}) {
  const pending: KeyValueNamespace<PendingAnnouncement> = options.store.namespace('subagent-announcements');
  const { logger } = options;
  /** The bookkeeping of each announcement turn under way (it resolves once its record is settled). */
  const answering = new Set<Promise<void>>();
  let closing = false;

  /** The router writes the entry when the turn takes it: found by its message id, if it got that far. */
  async function appendedEntry(item: PendingAnnouncement) {
    const tail = await options.sessions.transcript(item.requesterSessionKey, { last: 50 });
    return tail.find((entry) => entry.messageId === item.id);
  }

  /** Whether the turn that took the entry (the first to write after it) has ended, other than by a stop. */
  async function answered(sessionKey: string, entry: TranscriptEntry): Promise<boolean> {
    const record = await options.sessions.get(sessionKey);
    const after = await options.sessions.transcript(sessionKey, {
      last: Math.max(0, (record?.transcriptLength ?? 0) - entry.seq - 1),
    });
    const reply = after.find((later) => later.seq > entry.seq && later.role === 'assistant' && later.runId);
    const run = reply?.runId === undefined ? undefined : await options.runs.get(reply.runId);
    return run !== undefined && run.status !== 'running' && run.status !== 'interrupted';
  }

  /**
   * Records where the entry is (`recordEntry`), then, once the turn ended, clears the announcement:
   * it was answered, unless the stop aborted the turn or dropped it from the queue.
   */
  function settleWhenAnswered(
    item: PendingAnnouncement,
    recordEntry: Promise<void>,
    done: Promise<TurnReport>,
  ): Promise<void> {
    const settled = recordEntry.then(() =>
      done.then(
        async (result) => {
          if (closing && result.status === 'interrupted') return;
          await pending.delete(item.id);
        },
        (error: unknown) =>
          logger.warn(
            { err: error, run: item.announcement.runId },
            'announcement turn not run; it stays pending',
          ),
      ),
    );
    const tracked = settled.catch((error: unknown) =>
      logger.warn({ err: error, run: item.announcement.runId }, 'answered announcement not cleared'),
    );
    answering.add(tracked);
    void tracked.finally(() => answering.delete(tracked));
    return recordEntry;
  }

  async function deliver(item: PendingAnnouncement): Promise<void> {
    const record = await options.sessions.get(item.requesterSessionKey);
    if (!record) {
      logger.warn({ session: item.requesterSessionKey }, 'announcement for an unknown session dropped');
      await pending.delete(item.id);
      return;
    }
    const existing = await appendedEntry(item);
    if (existing && (await answered(record.key, existing))) {
      await pending.delete(item.id);
      return;
    }
    const { done } = await options.turns.startTurn({
      sessionKey: record.key,
      agentId: record.agentId,
      route: record.route,
      entry: { role: 'system', text: announcementText(item.announcement), messageId: item.id },
      ...(existing ? { appended: existing } : {}),
      senderId: ANNOUNCEMENT_SENDER,
      depth: subagentDepth(record.key),
    });
    await settleWhenAnswered(item, Promise.resolve(), done);
  }

  return {
    /** Stores the announcement (before the run's end is written, so that a crash cannot lose it). */
    async prepare(requesterSessionKey: string, announcement: Announcement): Promise<PendingAnnouncement> {
      const item: PendingAnnouncement = {
        id: announcementId(announcement.runId),
        requesterSessionKey,
        announcement,
      };
      await pending.set(item.id, item);
      return item;
    },
    /** Delivers a stored announcement; a failure leaves it pending for the next start. */
    async send(item: PendingAnnouncement): Promise<void> {
      await deliver(item).catch((error: unknown) =>
        logger.warn(
          { err: error, run: item.announcement.runId },
          'announcement not delivered; it stays pending',
        ),
      );
    },
    /** The announcements the last process left unanswered. */
    async pendingItems(): Promise<PendingAnnouncement[]> {
      const items: PendingAnnouncement[] = [];
      for await (const [, item] of pending.entries()) items.push(item);
      return items;
    },
    /** From now on a turn the stop interrupts leaves its announcement pending. */
    close(): void {
      closing = true;
    },
    /**
     * Resolves once every announcement turn under way has ended and its record is settled, or after
     * `limitMs` (a turn that ignores the stop must not hold it: its announcement stays pending).
     */
    async settled(limitMs: number): Promise<void> {
      const deadline = Date.now() + limitMs;
      while (answering.size > 0 && Date.now() < deadline) {
        const milliseconds = Math.max(0, deadline - Date.now());
        await pTimeout(Promise.all([...answering]), { milliseconds, fallback: () => undefined });
      }
    },
  };
}
