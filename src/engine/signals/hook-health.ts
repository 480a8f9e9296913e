import { errorText } from '../../base/errors/index.js';
import type { Logger } from '../../base/logging/index.js';

/** The longest wait between two attempts of a failing scheduler hook. */
export const MAX_HOOK_BACKOFF_MS = 5 * 60_000;
/** How many distinct error messages per hook are remembered (so each is logged once). */
const REMEMBERED_ERRORS = 20;

interface HookState {
  failures: number;
  error?: string;
  since?: number;
  backoffMs?: number;
  nextAttemptAt?: number;
  /** Messages already logged during this run of failures. */
  logged: Set<string>;
}

/**
 * Tracks the toolpacks' scheduler hooks. A hook that throws is skipped until its backoff has
 * passed; each distinct error message is logged once (with its stack) per run of failures, and
 * the first success after failures is logged once. A hook that failed for years thus writes a
 * handful of lines, not two a second.
 */
export function createHookHealth(options: {
  toolpackIds: readonly string[];
  tickMs: number;
  logger: Logger;
  now?: () => number;
}) {
  const now = options.now ?? Date.now;
  const states = new Map<string, HookState>(
    options.toolpackIds.map((id) => [id, { failures: 0, logged: new Set<string>() }]),
  );
  const stateOf = (id: string): HookState => {
    let state = states.get(id);
    if (!state) {
      state = { failures: 0, logged: new Set() };
      states.set(id, state);
    }
    return state;
  };

  return {
    /** Whether the hook may run on this tick (it is not waiting out a backoff). */
    due(id: string): boolean {
      const { nextAttemptAt } = stateOf(id);
      return nextAttemptAt === undefined || now() >= nextAttemptAt;
    },

    succeeded(id: string): void {
      const state = stateOf(id);
      if (state.failures > 0) {
        options.logger.info(
          { toolpack: id, failures: state.failures },
          'scheduler hook runs again after failing',
        );
      }
      states.set(id, { failures: 0, logged: new Set() });
    },

    failed(id: string, error: unknown): void {
      const state = stateOf(id);
      const message = errorText(error);
      state.failures += 1;
      state.error = message;
      state.since ??= now();
      state.backoffMs = Math.min(options.tickMs * 2 ** (state.failures - 1), MAX_HOOK_BACKOFF_MS);
      state.nextAttemptAt = now() + state.backoffMs;
      if (state.logged.has(message) || state.logged.size >= REMEMBERED_ERRORS) return;
      state.logged.add(message);
      options.logger.warn(
        { err: error, toolpack: id, failures: state.failures, retryInMs: state.backoffMs },
        'scheduler hook failed; retried with a growing delay, this error is not logged again (GET /api/toolpacks shows the state)',
      );
    },

    /**
     * Each hook's state, in the shape of the control contract `SchedulerHookView` (what `GET
     * /api/toolpacks` shows): declared there, since signals may not import control; the gateway,
     * which passes this on, checks that the two agree. `backoffMs`: one tick, doubled with every failure in a row,
     * at most MAX_HOOK_BACKOFF_MS.
     */
    report() {
      return [...states].map(([toolpackId, state]) => {
        if (state.failures === 0) return { toolpackId, status: 'ok' as const, failures: 0 };
        return {
          toolpackId,
          status: 'failing' as const,
          failures: state.failures,
          ...(state.error === undefined ? {} : { error: state.error }),
          ...(state.since === undefined ? {} : { since: new Date(state.since).toISOString() }),
          ...(state.backoffMs === undefined ? {} : { backoffMs: state.backoffMs }),
          ...(state.nextAttemptAt === undefined
            ? {}
            : { nextAttemptAt: new Date(state.nextAttemptAt).toISOString() }),
        };
      });
    },
  };
}
