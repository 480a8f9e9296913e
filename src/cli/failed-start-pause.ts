/**
 * How long a failed `start` under pm2 waits before it exits (issue 33 item 2). The ecosystem file
 * gives pm2 no backoff (pm2 6's `exp_backoff_restart_delay` turns `errored` into `waiting restart`,
 * which a stale `listen_timeout` timer then shows as `online` with pid 0), so pm2 restarts a failed
 * start at once: the gateway paces itself instead, 1 s, 2 s, 4 s, then 5 s, after pm2's count of
 * unstable restarts in a row (`unstable_restarts`, which pm2 puts in its app's environment).
 *
 * Bounded so that a failed process lives at most LIVE_LIMIT_MS: less than the ecosystem file's
 * `listen_timeout` (20 s), so pm2's timer never marks a process online that has not said ready.
 * Outside pm2 (no `pm_id`) nothing waits: a terminal gets its exit at once, systemd has RestartSec.
 */

const FIRST_PAUSE_MS = 1000;
const LONGEST_PAUSE_MS = 5000;
/** Start to exit of a failed start at most this long, pause included (below pm2's listen_timeout). */
export const LIVE_LIMIT_MS = 15_000;

export interface FailedStartPause {
  milliseconds: number;
  /** Failed starts in a row before this one, as pm2 counts them. */
  inARow: number;
}

/** Pure: the pause for a start that failed after `uptimeMs`, or undefined when not under pm2. */
export function failedStartPause(
  environment: NodeJS.ProcessEnv,
  uptimeMs: number,
): FailedStartPause | undefined {
  if (environment.pm_id === undefined) return undefined;
  const counted = Number(environment.unstable_restarts);
  const inARow = Number.isInteger(counted) && counted > 0 ? counted : 0;
  const growing = Math.min(FIRST_PAUSE_MS * 2 ** Math.min(inARow, 10), LONGEST_PAUSE_MS);
  const milliseconds = Math.max(0, Math.min(growing, LIVE_LIMIT_MS - uptimeMs));
  return { milliseconds, inARow };
}

/** The stderr line that says why the process waits (pm2's error log keeps it). */
export function pauseText(pause: FailedStartPause): string {
  const seconds = Math.round(pause.milliseconds / 100) / 10;
  return `switchboard: waiting ${seconds} s before exiting (failed starts in a row before this one: ${pause.inARow}), so that pm2 restarts at a steady pace; fix the cause above, then \`pm2 restart switchboard\``;
}

/** Waits out the pause; a stop signal (pm2 stop) ends it at once. */
export function waitOut(milliseconds: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    const timer = setTimeout(done, milliseconds);
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}
