import type { Logger } from '../logging/index.js';
import type { SessionStore, SubagentOutcome, SubagentRun } from '../sessions/index.js';
import type { KeyValueNamespace, Store } from '../store/index.js';
import type { SubagentTurns } from './types.js';

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

interface PendingAnnouncement {
  id: string;
  requesterSessionKey: string;
  announcement: Announcement;
}

export const ANNOUNCEMENT_SENDER = 'system:subagents';

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
 * Durable announcements: each is stored as pending before it is delivered, and deleted once its
 * system entry is in the requester's transcript and its turn is queued. One pending at a restart
 * is delivered by `resume`. The entry carries the announcement id as its message id, so a
 * delivery interrupted after the append is not appended twice.
 */
export function createAnnouncer(options: {
  store: Store;
  sessions: SessionStore;
  turns: SubagentTurns;
  logger: Logger;
}) {
  const pending: KeyValueNamespace<PendingAnnouncement> = options.store.namespace('subagent-announcements');
  const { logger } = options;

  async function alreadyAppended(item: PendingAnnouncement): Promise<boolean> {
    const tail = await options.sessions.transcript(item.requesterSessionKey, { last: 50 });
    return tail.some((entry) => entry.messageId === item.id);
  }

  async function deliver(item: PendingAnnouncement): Promise<void> {
    const record = await options.sessions.get(item.requesterSessionKey);
    if (!record) {
      logger.warn({ session: item.requesterSessionKey }, 'announcement for an unknown session dropped');
      await pending.delete(item.id);
      return;
    }
    if (!(await alreadyAppended(item))) {
      const { done } = await options.turns.startTurn({
        sessionKey: record.key,
        agentId: record.agentId,
        route: record.route,
        entry: { role: 'system', text: announcementText(item.announcement), messageId: item.id },
        senderId: ANNOUNCEMENT_SENDER,
        depth: depthOf(record.key),
      });
      void done.catch((error: unknown) => logger.warn({ err: error }, 'announcement turn failed'));
    }
    await pending.delete(item.id);
  }

  return {
    /** Stores the announcement, then delivers it; a failure leaves it pending for the next start. */
    async announce(requesterSessionKey: string, announcement: Announcement): Promise<void> {
      const item: PendingAnnouncement = { id: crypto.randomUUID(), requesterSessionKey, announcement };
      await pending.set(item.id, item);
      await deliver(item).catch((error: unknown) =>
        logger.warn({ err: error, run: announcement.runId }, 'announcement not delivered; it stays pending'),
      );
    },
    /** Delivers every announcement left pending by the last process. */
    async resume(): Promise<number> {
      const items: PendingAnnouncement[] = [];
      for await (const [, item] of pending.entries()) items.push(item);
      for (const item of items) {
        await deliver(item).catch((error: unknown) =>
          logger.warn({ err: error, run: item.announcement.runId }, 'pending announcement not delivered'),
        );
      }
      return items.length;
    },
  };
}

/** 0 for a chat session; one more for each `:subagent:` in the key. */
export function depthOf(sessionKey: string): number {
  return sessionKey.split(':subagent:').length - 1;
}
