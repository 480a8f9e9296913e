/** The first retry after a failure waits about this long; each further failure doubles it. */
const INITIAL_DELAY_MS = 1000;
/** The longest wait between two attempts. */
const MAX_DELAY_MS = 60_000;
const MAX_DOUBLINGS = 20;

/**
 * The wait before attempt `failures + 1` (as the channels' reconnects do): exponential, capped, with
 * "equal jitter" (between half the ceiling and all of it) so that servers that died together do not
 * all come back in the same instant.
 */
export function retryDelay(failures: number, random: () => number = Math.random): number {
  const exponent = Math.min(Math.max(failures - 1, 0), MAX_DOUBLINGS);
  const ceiling = Math.min(MAX_DELAY_MS, INITIAL_DELAY_MS * 2 ** exponent);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
