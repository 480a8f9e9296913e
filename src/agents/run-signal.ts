import { SwitchboardError } from '../errors/index.js';

export interface RunSignal {
  /** Aborted by the turn's signal (with its reason) or by the time limit (TURN_TIMEOUT), whichever comes first. */
  signal: AbortSignal;
  /** Whether the time limit fired. */
  timedOut(): boolean;
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
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(
      new SwitchboardError('TURN_TIMEOUT', `run ${runId} timed out after ${timeoutSeconds} s`),
    );
  }, timeoutSeconds * 1000);
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    dispose() {
      clearTimeout(timer);
      turn.removeEventListener('abort', follow);
    },
  };
}
