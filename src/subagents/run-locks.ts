/**
 * Per-run serial sections: each read-modify-write of a run's record runs after every earlier one for
 * the same run, so a steer, a start and an end never interleave their writes.
 */
export function createRunLocks() {
  const tails = new Map<string, Promise<unknown>>();
  return function withRun<T>(runId: string, task: () => Promise<T>): Promise<T> {
    const next = (tails.get(runId) ?? Promise.resolve()).then(task, task);
    const tail = next.catch(() => {});
    tails.set(runId, tail);
    void tail.then(() => {
      if (tails.get(runId) === tail) tails.delete(runId);
    });
    return next;
  };
}

export type WithRun = ReturnType<typeof createRunLocks>;
