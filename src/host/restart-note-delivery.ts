import type { Logger } from '../base/logging/index.js';
import type { DeliveryRoute, OutboundFor } from '../base/messages/index.js';
import type { SessionStore } from '../records/sessions/index.js';
import type { NoteDelivery, RestartIntent, RestartSentinel } from './restart-sentinel.js';

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 5 * 60_000;
/** How far back in a session a note already recorded is looked for. */
const RECENT_ENTRIES = 50;
/** A note that could not be posted for this long is dropped (logged as an error). */
export const NOTE_GIVE_UP_MS = 24 * 60 * 60_000;

/** A note whose restart is over: it has its text and counts its attempts. */
export type DueNote = RestartIntent & { delivery: NoteDelivery };

/** What one delivery attempt uses. */
export interface NoteDeliveryContext {
  sentinel: RestartSentinel;
  sessions: SessionStore;
  outboundFor: OutboundFor;
  logger: Logger;
  now(): number;
}

/**
 * One attempt at a due note: into its session first (once), then to its chat. Posted, it leaves
 * the sentinel; failed, it waits 0.5 s doubling to 5 min, and is dropped a day after it became due.
 */
export async function attemptNote(context: NoteDeliveryContext, intent: DueNote): Promise<void> {
  const { delivery } = intent;
  const { logger } = context;
  if (!delivery.recorded) {
    await recordNote(context, intent, delivery.text);
    await change(
      context.sentinel,
      intent.id,
      (current) => current.delivery && { ...current, delivery: { ...current.delivery, recorded: true } },
    );
  }
  const { route } = intent;
  if (!route) return change(context.sentinel, intent.id, () => undefined);
  if (delivery.attempts === 0)
    logger.info({ kind: intent.kind, session: intent.sessionKey }, 'delivering the restart note');
  try {
    await context.outboundFor(route).reply({ id: intent.id, text: delivery.text, notice: true });
  } catch (error) {
    return retryLater(context, intent, route, error);
  }
  await change(context.sentinel, intent.id, () => undefined);
  logger.info({ route: `${route.channel}:${route.chatId}`, kind: intent.kind }, 'restart note delivered');
}

function retryLater(context: NoteDeliveryContext, intent: DueNote, route: DeliveryRoute, error: unknown) {
  const { delivery } = intent;
  const attempts = delivery.attempts + 1;
  const retryMs = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (attempts - 1));
  const givingUp = context.now() + retryMs - delivery.dueAt > NOTE_GIVE_UP_MS;
  const fields = { err: error, route: `${route.channel}:${route.chatId}`, attempts };
  if (givingUp) context.logger.error(fields, 'could not deliver the restart note for a day; dropped it');
  else context.logger.warn({ ...fields, retryMs }, 'restart note delivery failed; retrying');
  const next = { ...delivery, attempts, nextAttemptAt: context.now() + retryMs };
  return change(context.sentinel, intent.id, (current) =>
    givingUp ? undefined : { ...current, delivery: next },
  );
}

/** Changes (or, returning undefined, removes) the intent with this id, under the sentinel's lock. */
function change(
  sentinel: RestartSentinel,
  id: string,
  edit: (intent: RestartIntent) => RestartIntent | undefined,
): Promise<void> {
  return sentinel.update((intents) => ({
    intents: intents.flatMap((intent) => {
      if (intent.id !== id) return [intent];
      const edited = edit(intent);
      return edited ? [edited] : [];
    }),
    result: undefined,
  }));
}

/** The note goes into the session too, so the agent knows; a session only commands touched is created. */
async function recordNote(context: NoteDeliveryContext, intent: RestartIntent, text: string): Promise<void> {
  const { sessionKey, route } = intent;
  const { sessions } = context;
  const agentId = /^agent:([^:]+):/.exec(sessionKey ?? '')?.[1];
  if (!sessionKey || !agentId) return;
  try {
    const existing = await sessions.get(sessionKey);
    if (!existing && !route) return;
    if (!existing && route) await sessions.ensure(sessionKey, { agentId, route });
    // The entry carries the note's id: a start after a kill between this append and the sentinel
    // saying so finds it among the last entries and does not add it again.
    const recent = existing ? await sessions.transcript(sessionKey, { last: RECENT_ENTRIES }) : [];
    if (recent.some((entry) => entry.role === 'system' && entry.messageId === intent.id)) return;
    await sessions.append(sessionKey, { role: 'system', text, messageId: intent.id });
  } catch (error) {
    context.logger.warn({ err: error, session: sessionKey }, 'could not add the restart note to the session');
  }
}
