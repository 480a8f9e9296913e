/**
 * Per-run serial sections: each read-modify-write of a run's record runs after every earlier one for
 * the same run, so a steer, a start and an end never interleave their writes.
 */
export function createRunLocks() {
  const tails = new Map<string, Promise<unknown>>();
  return function withRun<T>(subagentRunId: string, task: () => Promise<T>): Promise<T> {
    const next = (tails.get(subagentRunId) ?? Promise.resolve()).then(task, task);
    const tail = next.catch(() => {});
    tails.set(subagentRunId, tail);
    void tail.then(() => {
      if (tails.get(subagentRunId) === tail) tails.delete(subagentRunId);
    });
    return next;
  };
}

export type WithRun = ReturnType<typeof createRunLocks>;
