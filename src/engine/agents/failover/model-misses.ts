import { ModelCallError, type ModelProvider } from '../providers/index.js';
import { clockText, type FailoverState } from './failover-state.js';

/** How the models of a chain that did not answer a call are told: each one's miss, then one error. */

/** What happened to one model of the chain during a call: why it did not answer. */
export interface ModelMiss {
  why: string;
  message: string;
  error?: ModelCallError;
}

export function coolingMiss(name: string, until: number, now: number): ModelMiss {
  const when = clockText(until, now);
  return {
    why: `"${name}" is cooling down until ${when}`,
    message: `Model "${name}" is cooling down until ${when}.`,
  };
}

/** A 429 whose server said when to come back starts the model's cooldown. */
export function failedMiss(state: FailoverState, name: string, error: ModelCallError): ModelMiss {
  if (error.status === 429 && error.retryAfterMs !== undefined) {
    state.coolDown(name, state.now() + error.retryAfterMs);
  }
  return { why: `"${name}" failed: ${error.reason}`, message: error.message, error };
}

/** One model's failure as it was; several as one error that tells each. */
export function chainError(misses: ModelMiss[]): ModelCallError {
  const errors = misses.flatMap((miss) => (miss.error ? [miss.error] : []));
  const last = errors.at(-1);
  if (misses.length === 1 && last) return last;
  return new ModelCallError({
    model: last?.model ?? '',
    url: last?.url ?? '',
    ...(last?.status === undefined ? {} : { status: last.status }),
    attempts: errors.reduce((sum, error) => sum + error.attempts, 0),
    message: misses.map((miss) => miss.message).join(' '),
    reason: misses.map((miss) => miss.why).join('; '),
    cause: last,
  });
}

/** Nothing to call: every model of the chain is cooling down. Says when each is back. */
export function allCoolingDown(
  agentId: string,
  state: FailoverState,
  order: readonly ModelProvider[],
): ModelCallError {
  const now = state.now();
  const ends = order.map((provider) => ({
    name: provider.name,
    until: state.cooldownUntil(provider.name) ?? now,
  }));
  const first = Math.min(...ends.map((end) => end.until));
  const each = ends.map((end) => `"${end.name}" until ${clockText(end.until, now)}`).join(', ');
  const noun =
    ends.length === 1 ? `The model of agent "${agentId}" is` : `Every model of agent "${agentId}" is`;
  return new ModelCallError({
    model: order[0]?.name ?? '',
    url: '',
    attempts: 0,
    message: `${noun} cooling down after a rate limit (HTTP 429): ${each}. Try again after ${clockText(first, now)}.`,
    reason: `cooling down: ${each}`,
  });
}
