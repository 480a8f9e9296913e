import type PQueue from 'p-queue';
import type { Config } from '../config/index.js';
import type { Logger } from '../logging/index.js';
import type { RunStore, SessionStore, SubagentRegistry, SubagentRun } from '../sessions/index.js';
import type { Store } from '../store/index.js';
import type { Announcer } from './announcer.js';
import type { WithRun } from './run-locks.js';
import type { RunStates } from './run-states.js';
import type { SubagentTurns } from './types.js';

export interface SubagentManagerOptions {
  config: Config;
  registry: SubagentRegistry;
  sessions: SessionStore;
  /** The turn runs, for a child's model rounds and tool calls. */
  runs: RunStore;
  turns: SubagentTurns;
  store: Store;
  logger: Logger;
  now?: () => number;
}

/**
 * What the manager's parts share: its options, the run states (the only mutable state besides the
 * store), the per-run locks, the slots and the announcer. `launch` queues a run for a slot.
 */
export interface ManagerContext extends Omit<SubagentManagerOptions, 'now'> {
  now: () => number;
  /**
   * A new run's `startedAt`: `now`, but later than every start before it, so that the registry's
   * list by start time keeps spawn order when two spawns share a millisecond.
   */
  startTime: () => number;
  states: RunStates;
  withRun: WithRun;
  /** At most `subagents.maxConcurrent` child runs at once. */
  slots: PQueue;
  announcer: Announcer;
  launch(run: SubagentRun): void;
}

export const KILLED_BY_REQUESTER = 'killed by its requester';

/** A clock that never returns the same time twice: ties move forward by one millisecond. */
export function createStartClock(now: () => number): () => number {
  let last = Number.NEGATIVE_INFINITY;
  return () => {
    last = Math.max(now(), last + 1);
    return last;
  };
}
