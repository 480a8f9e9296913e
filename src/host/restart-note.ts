import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../base/logging/index.js';
import type { OutboundFor } from '../base/messages/index.js';
import type { SessionStore } from '../records/sessions/index.js';
import { attemptNote, type DueNote, type NoteDeliveryContext } from './restart-note-delivery.js';
import { dueWith, type RestartIntent, type RestartSentinel } from './restart-sentinel.js';

export { NOTE_GIVE_UP_MS } from './restart-note-delivery.js';

/** After the sentinel itself failed (a full disk), the loop looks again this much later. */
const SENTINEL_RETRY_MS = 5000;

export interface RestartNotesOptions {
  sentinel: RestartSentinel;
  /** This host's id: the restarts it promised and has not run yet stay pending. */
  instance: string;
  sessions: SessionStore;
  outboundFor: OutboundFor;
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

/** `Gateway restarted (<kind>): <note>`; a blank note ends at the kind; a warning follows on its own line. */
export function restartNoteText(
  intent: Pick<RestartIntent, 'kind' | 'message' | 'warning'>,
  unexpected = false,
): string {
  const kind = unexpected ? `${intent.kind}, after an unexpected stop` : intent.kind;
  const note = intent.message?.trim();
  const text = note ? `Gateway restarted (${kind}): ${note}` : `Gateway restarted (${kind}).`;
  return intent.warning ? `${text}\n${intent.warning}` : text;
}

/** The delivery loop's state: how it pauses and how a wake-up ends a pause. */
interface NotesLoop {
  options: RestartNotesOptions;
  clock: NoteClock;
  delivery: NoteDeliveryContext;
  /** Ends the pause under way, if any. */
  wake: (() => void) | undefined;
  /** A wake-up that came while the loop was busy: the next pause returns at once. */
  woken: boolean;
}

/**
 * After a start: makes the finished restarts' notes due, adds each to its session once (so the
 * agent knows), and posts each to its chat until the platform takes it, with backoff (0.5 s
 * doubling to 5 min, for a day), across restarts: a note leaves the sentinel only once it was
 * posted. A kill between the post and that removal posts it again at the next start (at least
 * once; the window is one file write). Never throws.
 */
export function createRestartNotes(options: RestartNotesOptions) {
  const clock = options.clock ?? REAL_CLOCK;
  const { sentinel, sessions, outboundFor, logger } = options;
  const state: NotesLoop = {
    options,
    clock,
    delivery: { sentinel, sessions, outboundFor, logger, now: () => clock.now() },
    wake: undefined,
    woken: false,
  };
  return {
    /** Runs until the gateway stops; resolves then (never rejects). */
    run: () => loop(state),
    /** New due notes were written (a refused restart's answer): look again now. */
    wake: () => {
      state.woken = true;
      state.wake?.();
    },
  };
}

async function loop(state: NotesLoop): Promise<void> {
  const { sentinel, logger, signal, instance } = state.options;
  let claimed = false;
  while (!signal.aborted) {
    let next: number | undefined;
    try {
      if (!claimed) {
        const now = state.clock.now();
        await sentinel.update((intents) => ({ intents: claim(intents, instance, now), result: undefined }));
        claimed = true;
      }
      next = await round(state);
    } catch (error) {
      logger.error({ err: error, file: sentinel.file }, 'the restart sentinel failed; trying again');
      next = state.clock.now() + SENTINEL_RETRY_MS;
    }
    await pause(state, next);
  }
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

/** One round: delivers what is ready; returns when to look again (undefined: on a wake-up). */
async function round(state: NotesLoop): Promise<number | undefined> {
  const { clock } = state;
  const due = (await state.options.sentinel.list()).filter(
    (intent): intent is DueNote => intent.status === 'due' && intent.delivery !== undefined,
  );
  const ready = due.filter((intent) => intent.delivery.nextAttemptAt <= clock.now());
  for (const intent of ready) if (!state.options.signal.aborted) await attemptNote(state.delivery, intent);
  if (ready.length > 0) return clock.now();
  return due.length === 0 ? undefined : Math.min(...due.map((intent) => intent.delivery.nextAttemptAt));
}

/** Waits until `at`, a wake-up, or the stop; without `at`, only for a wake-up or the stop. */
async function pause(state: NotesLoop, at: number | undefined): Promise<void> {
  const { signal } = state.options;
  if (state.woken || signal.aborted) {
    state.woken = false;
    return;
  }
  const ended = new AbortController();
  const end = () => ended.abort();
  state.wake = end;
  signal.addEventListener('abort', end, { once: true });
  try {
    if (at !== undefined) {
      await state.clock.sleep(Math.max(0, at - state.clock.now()), ended.signal).catch(() => {});
    } else await new Promise((resolve) => ended.signal.addEventListener('abort', resolve, { once: true }));
  } finally {
    signal.removeEventListener('abort', end);
    state.wake = undefined;
    state.woken = false;
  }
}
