import type { TranscriptEntry } from '../sessions/index.js';
import type { InboxItem } from './inbox.js';
import { type IntakeState, queueItem, RECENT_ENTRIES } from './intake-state.js';

/** Starts that may die while answering one message before it is given up (a message that crashes the gateway). */
const MAX_ATTEMPTS = 3;

/** Queues the messages the last process accepted and did not answer; returns how many it found. */
export async function resumeInbox(state: IntakeState): Promise<number> {
  const items = await state.options.inbox.list();
  for (const item of items) await requeue(state, item);
  if (items.length > 0)
    state.options.logger.info({ messages: items.length }, 'answering messages kept by the last stop');
  return items.length;
}

/** A message left by the last process: queued again, or given up after MAX_ATTEMPTS starts died answering it. */
async function requeue(state: IntakeState, item: InboxItem): Promise<void> {
  const { config, inbox, logger } = state.options;
  const agent = config.agents[item.agentId];
  if (agent && item.attempts < MAX_ATTEMPTS) {
    const written = item.stored ?? (await writtenEntry(state, item));
    void queueItem(state, written ? { ...item, stored: written } : item, agent).catch((error: unknown) =>
      logger.warn({ err: error, session: item.sessionKey }, 'resumed message not answered'),
    );
    return;
  }
  logger.error(
    { session: item.sessionKey, attempts: item.attempts, agent: item.agentId },
    agent
      ? 'message given up: the gateway stopped every time it answered it'
      : 'message for an agent no longer configured dropped',
  );
  await inbox.remove(item.id);
  const text = agent
    ? `I could not answer your message: the gateway stopped each of the ${item.attempts} times it tried.`
    : `Your message was not answered: agent "${item.agentId}" is no longer configured.`;
  await state.options.deliver(item.route, { id: crypto.randomUUID(), text }).catch(() => {});
}

/**
 * The process may have died between writing the entry to the transcript and noting that on the
 * inbox item: the entry is found by its platform message id, so it is not written twice.
 */
async function writtenEntry(state: IntakeState, item: InboxItem): Promise<TranscriptEntry | undefined> {
  const tail = await state.options.sessions.transcript(item.sessionKey, { last: RECENT_ENTRIES });
  return tail.find((entry) => entry.role === 'user' && entry.messageId === item.entry.messageId);
}
