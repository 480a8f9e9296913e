import { SwitchboardError } from '../../base/errors/index.js';

export interface RunSignal {
  /** Aborted by the turn's signal (with its reason) or by the time limit (TURN_TIMEOUT), whichever comes first. */
  signal: AbortSignal;
  /** Whether the time limit fired. */
  timedOut(): boolean;
  /**
   * Stops the time limit until the returned function is called (a tool call waiting for a human);
   * then the rest of the limit runs. Pauses nest: the clock runs again when the last one ends.
   */
  pause(): () => void;
  /** Clears the timer and the listener on the turn's signal: call when the run ends. */
  dispose(): void;
}

/**
 * A run's signal: one controller that listens to the turn's signal and a timer, rather than
 * `AbortSignal.any` with a second controller (on Node 20 that costs tens of µs per run and keeps
 * weak references until a GC).
 */
export function createRunSignal(turn: AbortSignal, timeoutSeconds: number, runId: string): RunSignal {
  const controller = new AbortController();
  let timedOut = false;
  const follow = () => controller.abort(turn.reason);
  if (turn.aborted) follow();
  else turn.addEventListener('abort', follow, { once: true });
  const fire = () => {
    timedOut = true;
    controller.abort(
      new SwitchboardError('TURN_TIMEOUT', `run ${runId} timed out after ${timeoutSeconds} s`),
    );
  };
  let remainingMs = timeoutSeconds * 1000;
  let startedAt = Date.now();
  let timer: NodeJS.Timeout | undefined = setTimeout(fire, remainingMs);
  let pauses = 0;
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    pause() {
      pauses += 1;
      if (pauses === 1 && timer) {
        clearTimeout(timer);
        timer = undefined;
        remainingMs -= Date.now() - startedAt;
      }
      let resumed = false;
      return () => {
        if (resumed) return;
        resumed = true;
        pauses -= 1;
        if (pauses > 0 || timedOut || controller.signal.aborted) return;
        startedAt = Date.now();
        timer = setTimeout(fire, Math.max(0, remainingMs));
      };
    },
    dispose() {
      clearTimeout(timer);
      timer = undefined;
      pauses = Number.POSITIVE_INFINITY;
      turn.removeEventListener('abort', follow);
    },
  };
}
