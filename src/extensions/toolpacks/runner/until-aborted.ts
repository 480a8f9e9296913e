export const ABORTED = Symbol('aborted');

/** Waits for `promise`, or answers `ABORTED` as soon as `signal` aborts (the promise itself runs on). */
export async function untilAborted<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T | typeof ABORTED> {
  if (signal === undefined) return promise;
  if (signal.aborted) return ABORTED;
  let onAbort = () => {};
  const aborted = new Promise<typeof ABORTED>((resolve) => {
    onAbort = () => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
