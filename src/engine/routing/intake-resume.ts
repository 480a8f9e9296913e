import type { AgentConfig } from '../../base/config/index.js';
import type { TranscriptEntry } from '../../records/sessions/index.js';
import type { InboxItem } from './inbox.js';
import { type IntakeState, queueItem, RECENT_ENTRIES } from './intake-state.js';

/** Starts that may die while answering one message before it is given up (a message that crashes the gateway). */
const MAX_ATTEMPTS = 3;

/** Queues the messages the last process accepted and did not answer; returns how many it found. */
export async function resumeInbox(state: IntakeState): Promise<number> {
  // Not those this process added already (they are queued): only what the last one left.
  const listed = await state.options.inbox.list();
  // Cleared after the listing: an item added while it ran is in the set, whether listed or not.
  const added = state.addedHere;
  state.addedHere = undefined;
  const items = listed.filter((item) => !added?.has(item.id));
  for (const item of items) await requeue(state, item);
  if (items.length > 0)
    state.options.logger.info({ messages: items.length }, 'answering messages kept by the last stop');
  return items.length;
}

/**
 * A message left by the last process: queued again, or given up after MAX_ATTEMPTS starts died
 * answering it. A start is counted here, not when the turn begins (that would cost an inbox write
 * per message): the last process began a turn for it when its entry is in the transcript. A turn
 * it began is resumed (`resumed`: see `resumeDecision`), or ended with a message in its chat.
 */
async function requeue(state: IntakeState, item: InboxItem): Promise<void> {
  const { config, inbox, logger } = state.options;
  const agent = config.agents[item.agentId];
  const written = agent ? await writtenEntry(state, item) : undefined;
  // Items from earlier releases carry `stored`: their `attempts` counted that start already.
  const { stored: _counted, ...fields } = item;
  const resumed = { ...fields, attempts: written && !item.stored ? item.attempts + 1 : item.attempts };
  if (agent && resumed.attempts < MAX_ATTEMPTS) {
    const decision = written
      ? await resumeDecision(state, item, written, agent)
      : { kind: 'resume' as const };
    if (decision.kind === 'answered') {
      logger.info({ session: item.sessionKey }, 'message answered before the last stop: not answered again');
      await inbox.remove(item.id);
      return;
    }
    if (decision.kind === 'end') {
      await endTurn(state, item, decision.text);
      return;
    }
    if (resumed.attempts !== item.attempts || item.stored) await inbox.update(resumed);
    void queueItem(state, resumed, agent, written).catch((error: unknown) =>
      logger.warn({ err: error, session: item.sessionKey }, 'resumed message not answered'),
    );
    return;
  }
  logger.error(
    { session: item.sessionKey, attempts: resumed.attempts, agent: item.agentId },
    agent
      ? 'message given up: the gateway stopped every time it answered it'
      : 'message for an agent no longer configured dropped',
  );
  const text = agent
    ? `I could not answer your message: the gateway stopped each of the ${resumed.attempts} times it tried.`
    : `Your message was not answered: agent "${item.agentId}" is no longer configured.`;
  if (agent) await endTurn(state, item, text);
  else {
    await inbox.remove(item.id);
    await state.options
      .outboundFor(item.route)
      .reply({ id: crypto.randomUUID(), text })
      .catch(() => {});
  }
}

/** A turn the last process began for the message (its entry is in the transcript), at this start. */
type ResumeDecision = { kind: 'resume' } | { kind: 'answered' } | { kind: 'end'; text: string };

/**
 * Whether the turn the last process began is resumed: not when it had answered already (the
 * process died before the message left the inbox), when the agent's `resume` is `off`, or when
 * the session's last entry is older than `agentLoop.resumeWithinMs` (ended, with a message).
 */
async function resumeDecision(
  state: IntakeState,
  item: InboxItem,
  written: TranscriptEntry,
  agent: AgentConfig,
): Promise<ResumeDecision> {
  const tail = await state.options.sessions.transcript(item.sessionKey, { last: RECENT_ENTRIES });
  const after = tail.filter((entry) => entry.seq > written.seq);
  if (turnAnswered(after)) return { kind: 'answered' };
  if (agent.resume === 'off') {
    return {
      kind: 'end',
      text: `A restart cut my answer to your message short, and this agent does not resume turns (agents.${item.agentId}.resume is "off"): please ask again.`,
    };
  }
  const last = tail.at(-1) ?? written;
  const limit = state.options.config.agentLoop.resumeWithinMs;
  const age = (state.options.now ?? Date.now)() - Date.parse(last.at);
  if (age > limit) {
    return {
      kind: 'end',
      text: `A restart cut my answer to your message short ${Math.round(age / 60_000)} min ago, longer than the resume limit (agentLoop.resumeWithinMs, ${Math.round(limit / 60_000)} min): it is not resumed, please ask again.`,
    };
  }
  return { kind: 'resume' };
}

/** The turn's last entry is the model's answer (an assistant entry calling no tool): it ended. */
function turnAnswered(after: readonly TranscriptEntry[]): boolean {
  const last = after.at(-1);
  return last?.role === 'assistant' && !last.toolCalls?.length && last.runId !== undefined;
}

/** Ends a turn that is not resumed: the message leaves the inbox, the chat and the transcript are told why. */
async function endTurn(state: IntakeState, item: InboxItem, text: string): Promise<void> {
  const { inbox, sessions, logger } = state.options;
  logger.warn({ session: item.sessionKey, agent: item.agentId }, 'interrupted turn ended, not resumed');
  await inbox.remove(item.id);
  await sessions.append(item.sessionKey, { role: 'system', text }).catch((error: unknown) => {
    logger.warn({ err: error, session: item.sessionKey }, 'ended turn not recorded');
  });
  await state.options
    .outboundFor(item.route)
    .reply({ id: crypto.randomUUID(), text })
    .catch(() => {});
}

/**
 * The entry the last process wrote for the item, found by its platform message id (so it is not
 * written twice). It was written after the item arrived: the search pages back RECENT_ENTRIES at
 * a time and stops at entries older than that.
 */
async function writtenEntry(state: IntakeState, item: InboxItem): Promise<TranscriptEntry | undefined> {
  if (item.stored) return item.stored;
  const { sessions } = state.options;
  let before: number | undefined;
  for (;;) {
    const page = await sessions.transcript(item.sessionKey, {
      last: RECENT_ENTRIES,
      ...(before === undefined ? {} : { before }),
    });
    const found = page.find((entry) => entry.role === 'user' && entry.messageId === item.entry.messageId);
    const oldest = page[0];
    if (found || page.length < RECENT_ENTRIES || !oldest || Date.parse(oldest.at) < item.receivedAt)
      return found;
    before = oldest.seq;
  }
}
