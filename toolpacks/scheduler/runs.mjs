// A job's run history and delivery receipts.
//
// `job.runs` holds the last RUN_LIMIT firings, oldest first: `{ at, state, messageId?, error?,
// deliveredAt?, attempts? }`. `state` is
// - `pending`: sent, and the store's receipt (`store.messageStatus(id)`) says not delivered yet;
// - `delivered`: posted to the route, or the wake turn carrying it to the agent started;
// - `failed`: the store gave up after its retries, or `sendMessage` threw (the route is gone);
// - `skipped`: the firing came while the previous message was still pending, so nothing was sent;
// - `sent`: handed to the store by a host without receipts (Suzumio's store has no messageStatus).
// `sentCount` counts delivered messages with receipts, sent messages without.

import { iso } from './timing.mjs';

export const RUN_LIMIT = 20;
/**
 * A pending message the store has no status for (it forgot it, or it was never journalled) is given up
 * after this long, so a once job never waits forever; a known `pending` status waits as long as it takes.
 */
export const UNKNOWN_RECEIPT_MS = 3_600_000;

/** Whether this host gives delivery receipts. */
export const hasReceipts = (store) => typeof store?.messageStatus === 'function';

/**
 * Appends a run, dropping the oldest beyond RUN_LIMIT; a pending run is dropped last, since its
 * receipt is still to be counted and it is what keeps the next firing from overlapping it.
 */
export function recordRun(job, run) {
  const runs = Array.isArray(job.runs) ? job.runs : [];
  runs.push(run);
  while (runs.length > RUN_LIMIT) {
    const oldest = runs.findIndex((entry) => entry?.state !== 'pending');
    runs.splice(Math.max(oldest, 0), 1);
  }
  job.runs = runs;
}

export const pendingRun = (job) =>
  Array.isArray(job.runs) ? job.runs.find((run) => run?.state === 'pending') : undefined;

/** The newest run that sent something or failed to (a skipped firing sent nothing). */
export const lastRun = (job) =>
  Array.isArray(job.runs) ? job.runs.findLast((run) => run?.state !== 'skipped') : undefined;

/**
 * Asks the store about each pending run of `job` and applies the answer: delivered grows `sentCount`
 * (a once job is `done`), failed records the error (a once job is `failed`). Returns whether anything
 * changed. A store that throws leaves the run pending (it is asked again next tick).
 */
export async function settleRuns(store, job, now) {
  if (!Array.isArray(job.runs)) return false;
  const receipts = hasReceipts(store);
  let changed = false;
  for (const run of job.runs) {
    if (run?.state !== 'pending') continue;
    if (!receipts) {
      // jobs.json from a host with receipts, now in one without: counted as sent, as this host does.
      delivered(job, run, { deliveredAt: run.at }, now);
      run.state = 'sent';
      delete run.deliveredAt;
      changed = true;
      continue;
    }
    let status;
    try {
      status = await store.messageStatus(run.messageId);
    } catch (error) {
      console.error(
        `[scheduler toolpack] job ${job.id}: no receipt for ${run.messageId}: ${error?.message ?? error}`,
      );
      continue;
    }
    const state = status?.state;
    if (state === 'delivered') {
      delivered(job, run, status, now);
      changed = true;
    } else if (state === 'failed') {
      failed(job, run, String(status.error ?? 'not delivered'), status.attempts, now);
      changed = true;
    } else if (status === undefined && now - Date.parse(run.at) >= UNKNOWN_RECEIPT_MS) {
      failed(job, run, `the store has no delivery status for ${run.messageId}`, undefined, now);
      changed = true;
    }
  }
  return changed;
}

function delivered(job, run, status, now) {
  run.state = 'delivered';
  run.deliveredAt = typeof status.deliveredAt === 'string' ? status.deliveredAt : iso(now);
  if (Number.isInteger(status.attempts)) run.attempts = status.attempts;
  job.sentCount = (Number.isInteger(job.sentCount) ? job.sentCount : 0) + 1;
  if (job.status === 'active') {
    // A failed or cancelled job keeps the error that ended it.
    delete job.lastError;
    delete job.lastErrorAt;
  }
  if (job.type === 'once' && job.status === 'active') {
    job.status = 'done';
    job.completedAt = run.deliveredAt;
  }
}

function failed(job, run, error, attempts, now) {
  run.state = 'failed';
  run.error = error;
  if (Number.isInteger(attempts)) run.attempts = attempts;
  job.lastError = error;
  job.lastErrorAt = iso(now);
  if (job.type === 'once' && job.status === 'active') {
    job.status = 'failed';
    job.failedAt = iso(now);
  }
}
