import type { RestartRequest } from '../app/index.js';
import type { Logger } from '../base/logging/index.js';
import type { ScheduledRestart } from '../engine/tools/index.js';
import type { RestartPromises } from './restart-promises.js';
import type { RestartIntent } from './restart-sentinel.js';

export const DEFAULT_RESTART_DELAY_MS = 2000;
export const MAX_RESTART_DELAY_MS = 60_000;

/** The answer to a request: declared with the port the gateway tool and commands call. */
export type { RestartRequest, ScheduledRestart };

export interface RestartScheduleOptions {
  notes: RestartPromises;
  logger: Logger;
  /** Runs the restart when its time comes (the host's in-process restart). */
  restart(reason: string): Promise<void>;
}

/** The restart waiting for its time: requests close together join it and the earliest time wins. */
interface Pending {
  dueAt: number;
  reason: string;
  /** Every joined request's note, served by the restart that runs. */
  intents: RestartIntent[];
  timer: NodeJS.Timeout;
}

export type RestartSchedule = ReturnType<typeof createRestartSchedule>;

/** The host's scheduled restart: at most one pending, closed for good when the host stops. */
export function createRestartSchedule(options: RestartScheduleOptions) {
  const { notes, logger } = options;
  let pending: Pending | undefined;
  let closed = false;

  /** Takes the pending restart's notes (the restart about to run serves them) and cancels its timer. */
  function take(): RestartIntent[] {
    if (!pending) return [];
    clearTimeout(pending.timer);
    const { intents } = pending;
    pending = undefined;
    return intents;
  }

  /**
   * Schedules a restart `delayMs` from now (default 2000, clamped to 0–60000). A request made
   * while one is pending joins it (`coalesced`); the earlier time wins, and every request's note
   * is kept (see restart-promises.ts). Resolves once the note is recorded.
   */
  async function schedule(request: RestartRequest): Promise<ScheduledRestart> {
    const delayMs = clampDelay(request.delayMs);
    const reason = request.reason ?? 'restart requested';
    // After stop nothing restarts; no timer may keep the process alive either.
    if (closed) return { status: 'scheduled', delayMs, reason, coalesced: false };
    const dueAt = Date.now() + delayMs;
    const previous = pending;
    const intents = previous?.intents ?? [];
    // Before any await: the restart cannot run (and take the notes) between these lines.
    const recorded = request.note ? notes.promise(intents, request.note) : Promise.resolve();
    let answer: ScheduledRestart;
    if (previous && previous.dueAt <= dueAt) {
      const left = previous.dueAt - Date.now();
      answer = { status: 'scheduled', delayMs: left, reason: previous.reason, coalesced: true };
    } else {
      if (previous) clearTimeout(previous.timer);
      const timer = setTimeout(() => {
        options
          .restart(reason)
          .catch((error: unknown) => logger.error({ err: error }, 'scheduled restart failed'));
      }, delayMs);
      pending = { dueAt, reason, timer, intents };
      answer = { status: 'scheduled', delayMs, reason, coalesced: previous !== undefined };
      logger.info({ delayMs, reason, coalesced: answer.coalesced }, 'restart scheduled');
    }
    await recorded;
    return answer;
  }

  return {
    schedule,
    take,
    /** The host stops: nothing is scheduled any more; returns the notes of a restart that never ran. */
    close(): RestartIntent[] {
      closed = true;
      return take();
    },
  };
}

function clampDelay(delayMs: number | undefined): number {
  return Math.min(MAX_RESTART_DELAY_MS, Math.max(0, Math.floor(delayMs ?? DEFAULT_RESTART_DELAY_MS)));
}
