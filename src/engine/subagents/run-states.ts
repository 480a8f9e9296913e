import type { TurnEnd } from './types.js';

/**
 * Why a run was killed: on its requester's order (its end is announced), or with an ancestor
 * (nobody is left to hear it, so its end is not announced).
 */
export type KillReason = 'requested' | 'with-ancestor';

/**
 * What this process is doing with a run it launched. `queued`: waiting for a
 * `subagents.maxConcurrent` slot; `starting`: it took its slot and its turn is being started;
 * `running`: its turn runs, `steered` holds the turns its steers went into; `ending`: its end is
 * decided and being recorded (a kill no longer reaches it). A run this process has no state for has
 * ended here, or was left in the store by the last process.
 */
type RunState =
  | { phase: 'queued' }
  | { phase: 'starting'; killed?: KillReason }
  | { phase: 'running'; steered: Promise<TurnEnd>[]; killed?: KillReason }
  | { phase: 'ending'; killed?: KillReason };

/** What a kill does to a run: end it without a turn, stop its turn, or nothing (its end is decided). */
export type KillEffect = 'cancel' | 'stop' | 'skip';

export type RunStates = ReturnType<typeof createRunStates>;

/**
 * Every transition of a run's state, in one place: `queue → take → running → decideEnd → end`,
 * a kill in between. Each transition is synchronous, so that no other code runs between the check of
 * a phase and its change: the end of a run is decided either before a kill (killed) or after it (the
 * kill skips it), never both.
 */
export function createRunStates() {
  const states = new Map<string, RunState>();
  let closing = false;
  const killedOf = (state: RunState | undefined) =>
    state !== undefined && 'killed' in state ? state.killed : undefined;

  return {
    phase: (subagentRunId: string): RunState['phase'] | 'ended' =>
      states.get(subagentRunId)?.phase ?? 'ended',
    /** A run recorded as queued waits for its slot (before its record is written, so a kill finds it). */
    queue(subagentRunId: string): void {
      states.set(subagentRunId, { phase: 'queued' });
    },
    /** Its slot came: false when it may not start (killed while waiting, or the manager is closing). */
    take(subagentRunId: string): boolean {
      if (closing || states.get(subagentRunId)?.phase !== 'queued') return false;
      states.set(subagentRunId, { phase: 'starting' });
      return true;
    },
    /** Its turn is queued: steers go into the running turn from now on. */
    running(subagentRunId: string): void {
      const state = states.get(subagentRunId);
      if (state?.phase !== 'starting') return;
      const killed = killedOf(state);
      states.set(subagentRunId, { phase: 'running', steered: [], ...(killed ? { killed } : {}) });
    },
    /** The turns its steers went into, while it runs; undefined once its end is decided. */
    steered(subagentRunId: string): Promise<TurnEnd>[] | undefined {
      const state = states.get(subagentRunId);
      return state?.phase === 'running' ? state.steered : undefined;
    },
    killReason: (subagentRunId: string): KillReason | undefined => killedOf(states.get(subagentRunId)),
    /** A kill reaches the run. Silence sticks: a run once killed with an ancestor stays unannounced. */
    kill(subagentRunId: string, reason: KillReason, recordedQueued: boolean): KillEffect {
      const state = states.get(subagentRunId);
      if (state === undefined) return recordedQueued ? 'cancel' : 'stop';
      if (state.phase === 'ending') return 'skip';
      if (state.phase === 'queued') {
        states.delete(subagentRunId);
        return 'cancel';
      }
      const killed = state.killed === 'with-ancestor' ? state.killed : reason;
      states.set(subagentRunId, { ...state, killed });
      return 'stop';
    },
    /** The one point where the run's end is decided: how it was killed, if it was. */
    decideEnd(subagentRunId: string): KillReason | undefined {
      const killed = killedOf(states.get(subagentRunId));
      states.set(subagentRunId, { phase: 'ending', ...(killed ? { killed } : {}) });
      return killed;
    },
    end(subagentRunId: string): void {
      states.delete(subagentRunId);
    },
    close(): void {
      closing = true;
    },
    get closing(): boolean {
      return closing;
    },
  };
}
