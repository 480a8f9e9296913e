/**
 * What model failover keeps gateway-wide (one per gateway, made at the composition root): each
 * model's cooldown and the last failover. A cooldown starts when a model answers 429 with a
 * `retry-after` (however long: one beyond MAX_RETRY_WAIT_MS too) and lasts until then; every
 * chain skips the model meanwhile. The clock is injected so tests can move past a cooldown.
 */

/** A fallback answered in place of the chain's first model. */
export interface FailoverRecord {
  /** When (ISO time). */
  at: string;
  agentId: string;
  /** The chain's first model. */
  from: string;
  /** The model that answered. */
  to: string;
  /** Why `from` did not answer, e.g. `"a" failed: HTTP 429 Too Many Requests: …` (not scrubbed here). */
  why: string;
}

export interface FailoverState {
  now(): number;
  /** When the model's cooldown ends (ms since the epoch), or undefined when it is not cooling down. */
  cooldownUntil(model: string): number | undefined;
  /** Puts the model in cooldown until `untilMs` (a later end wins over an earlier one). */
  coolDown(model: string, untilMs: number): void;
  /** Every model cooling down now, with its end. */
  cooldowns(): { model: string; until: number }[];
  recordFailover(record: Omit<FailoverRecord, 'at'>): void;
  lastFailover(): FailoverRecord | undefined;
}

export function createFailoverState(options: { now?: () => number } = {}): FailoverState {
  const now = options.now ?? Date.now;
  const until = new Map<string, number>();
  let last: FailoverRecord | undefined;
  const cooldownUntil = (model: string) => {
    const end = until.get(model);
    if (end === undefined) return undefined;
    if (end > now()) return end;
    until.delete(model);
    return undefined;
  };
  return {
    now,
    cooldownUntil,
    coolDown(model, untilMs) {
      until.set(model, Math.max(untilMs, until.get(model) ?? 0));
    },
    cooldowns: () =>
      [...until.keys()].flatMap((model) => {
        const end = cooldownUntil(model);
        return end === undefined ? [] : [{ model, until: end }];
      }),
    recordFailover(record) {
      last = { at: new Date(now()).toISOString(), ...record };
    },
    lastFailover: () => last,
  };
}

/** A time for a chat message: `18:52:10 UTC`, with the day when it is not today. */
export function clockText(ms: number, nowMs: number): string {
  const iso = new Date(ms).toISOString();
  const sameDay = iso.slice(0, 10) === new Date(nowMs).toISOString().slice(0, 10);
  return `${sameDay ? '' : `${iso.slice(0, 10)} `}${iso.slice(11, 19)} UTC`;
}
