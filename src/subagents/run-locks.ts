import { createKeyQueue } from '../store/index.js';

/**
 * Per-run serial sections: each read-modify-write of a run's record runs after every earlier one for
 * the same run, so a steer, a start and an end never interleave their writes.
 */
export function createRunLocks() {
  const queue = createKeyQueue();
  return function withRun<T>(subagentRunId: string, task: () => Promise<T>): Promise<T> {
    return queue.run(subagentRunId, task);
  };
}

export type WithRun = ReturnType<typeof createRunLocks>;
