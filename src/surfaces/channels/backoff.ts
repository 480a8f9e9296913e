/** How a channel that could not connect is retried (`channels.<name>.reconnect`). */
export interface ReconnectSettings {
  /** The wait before the first retry; it doubles with each failed attempt. */
  initialDelayMs: number;
  /** The longest wait between two attempts. */
  maxDelayMs: number;
  /** The wait while the platform refuses the credentials. */
  refusedDelayMs: number;
}

/** Caps the exponent: 2 ** 40 ms is far past any `maxDelayMs`, and no float overflows. */
const MAX_DOUBLINGS = 40;

/**
 * The wait before attempt `failures + 1`, after `failures` (≥ 1) failed ones: exponential from
 * `initialDelayMs`, capped at `maxDelayMs`, or `refusedDelayMs` when the credentials were refused.
 * "Equal jitter": somewhere between half of that ceiling and all of it, so that gateways which
 * lost the same platform at once do not all come back in the same instant, yet never retry
 * sooner than half the planned wait. `random` returns a number in [0, 1).
 */
export function retryDelay(
  failures: number,
  settings: ReconnectSettings,
  refused: boolean,
  random: () => number = Math.random,
): number {
  const exponent = Math.min(Math.max(failures - 1, 0), MAX_DOUBLINGS);
  const ceiling = refused
    ? settings.refusedDelayMs
    : Math.min(settings.maxDelayMs, settings.initialDelayMs * 2 ** exponent);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
