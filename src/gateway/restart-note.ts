import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../logging/index.js';
import type { DeliveryRoute, OutboundMessage } from '../messages/index.js';
import type { SessionStore } from '../sessions/index.js';
import { dueWith, type NoteDelivery, type RestartIntent, type RestartSentinel } from './restart-sentinel.js';

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 5 * 60_000;
/** After the sentinel itself failed (a full disk), the loop looks again this much later. */
const SENTINEL_RETRY_MS = 5000;
/** How far back in a session a note already recorded is looked for. */
const RECENT_ENTRIES = 50;
/** A note that could not be posted for this long is dropped (logged as an error). */
export const NOTE_GIVE_UP_MS = 24 * 60 * 60_000;

export interface RestartNotesOptions {
  sentinel: RestartSentinel;
  /** This host's id: the restarts it promised and has not run yet stay pending. */
  instance: string;
  sessions: SessionStore;
  deliver(route: DeliveryRoute, message: OutboundMessage): Promise<void>;
  logger: Logger;
  /** Ends the delivery loop when the gateway stops (the notes left stay in the sentinel). */
  signal: AbortSignal;
  /** Time, for tests of long outages (default: the real clock). */
  clock?: NoteClock;
}

export interface NoteClock {
  now(): number;
  /** Resolves after `ms`, or earlier (resolving or rejecting) when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<unknown>;
}

const REAL_CLOCK: NoteClock = {
  now: () => Date.now(),
  sleep: (ms, signal) => sleep(ms, undefined, { signal }),
};

/** `Gateway restarted (<kind>): <note>`; a blank note ends at the kind. */
export function restartNoteText(intent: Pick<RestartIntent, 'kind' | 'message'>, unexpected = false): string {
  const kind = unexpected ? `${intent.kind}, after an unexpected stop` : intent.kind;
  const note = intent.message?.trim();
  return note ? `Gateway restarted (${kind}): ${note}` : `Gateway restarted (${kind}).`;
}

/**
 * Every note whose restart is over becomes due: a committed one says the gateway restarted, a
 * promised one from another host (one that stopped before its restart ran) says it restarted
 * after an unexpected stop. This host's own promises wait for their restart.
 */
function claim(intents: RestartIntent[], instance: string, now: number): RestartIntent[] {
  return intents.map((intent) => {
    if (intent.status === 'due' || (intent.status === 'promised' && intent.owner === instance)) return intent;
    return dueWith(intent, restartNoteText(intent, intent.status === 'promised'), now);
  });
}

/**
 * After a start: makes the finished restarts' notes due, adds each to its session once (so the
 * agent knows), and posts each to its chat until the platform takes it, with backoff (0.5 s
 * doubling to 5 min, for a day), across restarts: a note leaves the sentinel only once it was
 * posted. A kill between the post and that removal posts it again at the next start (at least
 * once; the window is one file write). Never throws.
 */
export function createRestartNotes(options: RestartNotesOptions) {
  const { sentinel, logger, signal } = options;
  const clock = options.clock ?? REAL_CLOCK;
  let wake: (() => void) | undefined;
  /** A wake-up that came while the loop was busy: the next pause returns at once. */
  let woken = false;

  /** Waits until `at`, a wake-up, or the stop; without `at`, only for a wake-up or the stop. */
  async function pause(at: number | undefined): Promise<void> {
    if (woken || signal.aborted) {
      woken = false;
      return;
    }
    const ended = new AbortController();
    const end = () => ended.abort();
    wake = end;
    signal.addEventListener('abort', end, { once: true });
    try {
      if (at !== undefined) await clock.sleep(Math.max(0, at - clock.now()), ended.signal).catch(() => {});
      else await new Promise((resolve) => ended.signal.addEventListener('abort', resolve, { once: true }));
    } finally {
      signal.removeEventListener('abort', end);
      wake = undefined;
      woken = false;
    }
  }

  const change = (id: string, edit: (intent: RestartIntent) => RestartIntent | undefined) =>
    sentinel.update((intents) => ({
      intents: intents.flatMap((intent) => {
        if (intent.id !== id) return [intent];
        const edited = edit(intent);
        return edited ? [edited] : [];
      }),
      result: undefined,
    }));

  async function attempt(intent: RestartIntent & { delivery: NoteDelivery }): Promise<void> {
    const { delivery } = intent;
    if (!delivery.recorded) {
      await recordNote(options, intent, delivery.text);
      await change(
        intent.id,
        (current) => current.delivery && { ...current, delivery: { ...current.delivery, recorded: true } },
      );
    }
    const route = intent.route;
    if (!route) return change(intent.id, () => undefined);
    if (delivery.attempts === 0)
      logger.info({ kind: intent.kind, session: intent.sessionKey }, 'delivering the restart note');
    try {
      await options.deliver(route, { id: intent.id, text: delivery.text, notice: true });
    } catch (error) {
      const attempts = delivery.attempts + 1;
      const retryMs = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (attempts - 1));
      const givingUp = clock.now() + retryMs - delivery.dueAt > NOTE_GIVE_UP_MS;
      const fields = { err: error, route: `${route.channel}:${route.chatId}`, attempts };
      if (givingUp) logger.error(fields, 'could not deliver the restart note for a day; dropped it');
      else logger.warn({ ...fields, retryMs }, 'restart note delivery failed; retrying');
      const next = { ...delivery, attempts, nextAttemptAt: clock.now() + retryMs };
      return change(intent.id, (current) => (givingUp ? undefined : { ...current, delivery: next }));
    }
    await change(intent.id, () => undefined);
    logger.info({ route: `${route.channel}:${route.chatId}`, kind: intent.kind }, 'restart note delivered');
  }

  /** One round: delivers what is ready; returns when to look again (undefined: on a wake-up). */
  async function round(): Promise<number | undefined> {
    const due = (await sentinel.list()).filter(
      (intent): intent is RestartIntent & { delivery: NoteDelivery } =>
        intent.status === 'due' && intent.delivery !== undefined,
    );
    const ready = due.filter((intent) => intent.delivery.nextAttemptAt <= clock.now());
    for (const intent of ready) if (!signal.aborted) await attempt(intent);
    if (ready.length > 0) return clock.now();
    return due.length === 0 ? undefined : Math.min(...due.map((intent) => intent.delivery.nextAttemptAt));
  }

  async function loop(): Promise<void> {
    let claimed = false;
    while (!signal.aborted) {
      let next: number | undefined;
      try {
        if (!claimed) {
          const now = clock.now();
          await sentinel.update((intents) => ({
            intents: claim(intents, options.instance, now),
            result: undefined,
          }));
          claimed = true;
        }
        next = await round();
      } catch (error) {
        logger.error({ err: error, file: sentinel.file }, 'the restart sentinel failed; trying again');
        next = clock.now() + SENTINEL_RETRY_MS;
      }
      await pause(next);
    }
  }

  return {
    /** Runs until the gateway stops; resolves then (never rejects). */
    run: () => loop(),
    /** New due notes were written (a refused restart's answer): look again now. */
    wake: () => {
      woken = true;
      wake?.();
    },
  };
}

/** The note goes into the session too, so the agent knows; a session only commands touched is created. */
async function recordNote(options: RestartNotesOptions, intent: RestartIntent, text: string): Promise<void> {
  const { sessionKey } = intent;
  const agentId = /^agent:([^:]+):/.exec(sessionKey ?? '')?.[1];
  if (!sessionKey || !agentId) return;
  try {
    const existing = await options.sessions.get(sessionKey);
    const route = intent.route;
    if (!existing && !route) return;
    if (!existing && route) await options.sessions.ensure(sessionKey, { agentId, route });
    // The entry carries the note's id: a start after a kill between this append and the sentinel
    // saying so finds it among the last entries and does not add it again.
    const recent = existing ? await options.sessions.transcript(sessionKey, { last: RECENT_ENTRIES }) : [];
    if (recent.some((entry) => entry.role === 'system' && entry.messageId === intent.id)) return;
    await options.sessions.append(sessionKey, { role: 'system', text, messageId: intent.id });
  } catch (error) {
    options.logger.warn({ err: error, session: sessionKey }, 'could not add the restart note to the session');
  }
}
