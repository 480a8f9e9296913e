import type { WakeObserver } from './wake.js';

/** How many wake turns the log keeps (the newest). */
export const MAX_LOGGED_ACTIVATIONS = 200;

/** One wake turn, in Suzumio's words (an activation). */
export interface ActivationEntry {
  /** `act_<n>` until the turn ends; then its run id, when it has one. */
  id: string;
  agentId: string;
  status: 'running' | 'completed' | 'failed' | 'cancelled';
  startedAt: string;
  completedAt?: string;
  error?: string;
}

/**
 * The wake turns of this process, newest last and bounded (memory only), for `store.db`'s
 * `activations` table: wraps the wake observer, a start adds a running entry, its end settles it.
 */
export function createActivationLog(now: () => Date = () => new Date()) {
  const entries: ActivationEntry[] = [];
  let count = 0;
  return {
    wrap(inner: WakeObserver): WakeObserver {
      return {
        started(agentId, signals) {
          count += 1;
          entries.push({ id: `act_${count}`, agentId, status: 'running', startedAt: now().toISOString() });
          if (entries.length > MAX_LOGGED_ACTIVATIONS) entries.shift();
          inner.started(agentId, signals);
        },
        ended(agentId, ended) {
          const entry = entries.findLast((one) => one.agentId === agentId && one.status === 'running');
          if (entry) {
            entry.status =
              ended.status === 'done' ? 'completed' : ended.status === 'interrupted' ? 'cancelled' : 'failed';
            entry.completedAt = now().toISOString();
            if (ended.runId) entry.id = ended.runId;
            if (ended.error) entry.error = ended.error;
          }
          return inner.ended(agentId, ended);
        },
      };
    },
    /** The entries, oldest first (copies). */
    rows: (): ActivationEntry[] => entries.map((entry) => ({ ...entry })),
  };
}
