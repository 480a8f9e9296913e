// The scheduler tick: settles the receipts of pending sends, then fires each due job once.

import { hasReceipts, pendingRun, recordRun, settleRuns } from './runs.mjs';
import { jobsFile, withJobs } from './state.mjs';
import { iso, nextOccurrence } from './timing.mjs';

/** A once job whose message could not be sent (say, its route was removed) is tried again this much later. */
const RETRY_MS = 60_000;

const parsedNextAt = new WeakMap(); // job -> { text, ms }
const reportedUnreadable = new WeakSet(); // jobs whose bad nextAt was logged once

/** A job's due time in ms, parsed once per nextAt text; NaN when unreadable. */
export function dueMs(job) {
  const known = parsedNextAt.get(job);
  if (known && known.text === job.nextAt) return known.ms;
  const ms = typeof job.nextAt === 'string' ? Date.parse(job.nextAt) : Number.NaN;
  parsedNextAt.set(job, { text: job.nextAt, ms });
  return ms;
}

/**
 * Sends every active job due at `now`, once. `state.hint` is the earliest due time of the active
 * jobs (a memo, recomputed on each scan; `now` itself while any job's receipt is pending, so the next
 * tick scans again), so a tick with nothing due and nothing pending does no scan. A job due while its
 * waitForQuiet recipient is busy stays due and is looked at again on the next tick.
 */
export function fireDueJobs(context, now) {
  return withJobs(jobsFile(context.store), async (state) => {
    if (state.hint !== undefined && state.hint > now) return {};
    let earliest = Number.POSITIVE_INFINITY;
    let changed = false;
    for (const job of state.jobs) {
      // Receipts first, whatever the status: a job cancelled after a send still learns its outcome.
      if (pendingRun(job) && (await settleRuns(context.store, job, now))) changed = true;
      const waiting = pendingRun(job) !== undefined;
      if (waiting) earliest = now;
      if (job.status !== 'active') continue;
      // A once job that was sent waits for its receipt; it is not due again.
      if (waiting && job.type === 'once') continue;
      const due = readableDue(job);
      if (due === undefined) continue;
      if (due > now || (job.waitForQuiet === true && busy(context, job.recipient))) {
        earliest = Math.min(earliest, due);
        continue;
      }
      fire(context, job, now, waiting);
      changed = true;
      if (job.status === 'active') earliest = Math.min(earliest, pendingRun(job) ? now : dueMs(job));
    }
    state.hint = earliest;
    return { save: changed };
  });
}

function readableDue(job) {
  const due = dueMs(job);
  if (!Number.isNaN(due)) return due;
  if (!reportedUnreadable.has(job)) {
    reportedUnreadable.add(job);
    console.error(
      `[scheduler toolpack] job ${job.id} has an unreadable nextAt ${JSON.stringify(job.nextAt)}; skipped`,
    );
  }
  return undefined;
}

function count(value) {
  return Number.isInteger(value) && value > 0 ? value : 0;
}

/**
 * One firing of a due job. A recurring job whose previous message is still pending sends nothing
 * (no overlap): the firing is recorded as `skipped`. The next time is computed from `now`, not from
 * the missed due time, so a job missed during downtime fires once, then resumes.
 */
function fire(context, job, now, overlapping) {
  if (overlapping) {
    const previous = pendingRun(job);
    recordRun(job, {
      at: iso(now),
      state: 'skipped',
      error: `the previous message ${previous?.messageId} is not delivered yet`,
    });
    advance(job, now);
    return;
  }
  const receipts = hasReceipts(context.store);
  // Firings that sent (or tried to): each one's send key is new, even while receipts are pending.
  const fired = Number.isInteger(job.firedCount) ? job.firedCount : count(job.sentCount);
  let message;
  try {
    message = context.store.sendMessage({
      sender: job.sender,
      recipient: job.recipient,
      channel: job.channel,
      priority: job.priority ?? 'P3',
      body: job.body,
      // This firing's name (Switchboard; Suzumio ignores it): when the process is killed after the
      // send and before jobs.json says so, the same firing after the restart is not sent again.
      sendKey: `${job.id}:${fired + 1}`,
      // Switchboard: who made the job pays for the turn it wakes (Suzumio ignores it).
      ...(job.chargedTo === undefined ? {} : { chargedTo: job.chargedTo }),
    });
  } catch (error) {
    const reason = String(error?.message ?? error);
    console.error(`[scheduler toolpack] job ${job.id} could not be sent: ${reason}`);
    recordRun(job, { at: iso(now), state: 'failed', error: reason });
    job.lastError = reason;
    job.lastErrorAt = iso(now);
    if (job.type === 'recurring') advance(job, now);
    else job.nextAt = iso(now + RETRY_MS);
    return;
  }
  job.firedCount = fired + 1;
  job.lastSentAt = iso(now);
  job.lastMessageId = message?.id;
  recordRun(job, { at: iso(now), state: receipts ? 'pending' : 'sent', messageId: message?.id });
  // With receipts, sentCount and done wait for the receipt (runs.mjs).
  if (!receipts) {
    delete job.lastError;
    delete job.lastErrorAt;
    job.sentCount = count(job.sentCount) + 1;
    if (job.type === 'once') {
      job.status = 'done';
      job.completedAt = iso(now);
    }
  }
  if (job.type === 'recurring') advance(job, now);
}

/**
 * One firing now, out of schedule (the Schedules page's Run now), with the tick's rules: no overlap
 * with a pending message, the run recorded. A recurring job keeps the next time it had. Returns the run.
 */
export function fireNow(context, job, now) {
  const nextAt = job.nextAt;
  fire(context, job, now, pendingRun(job) !== undefined);
  if (job.type === 'recurring' && job.status !== 'failed') job.nextAt = nextAt;
  return job.runs.at(-1);
}

/**
 * Moves a recurring job to its next time. A schedule that cannot be computed any more (a time zone
 * edited into jobs.json that this runtime does not know) makes the job `failed`, naming why, rather
 * than firing on some other rhythm.
 */
function advance(job, now) {
  try {
    job.nextAt = iso(nextOccurrence(job.schedule, now));
  } catch (error) {
    const reason = `its schedule cannot be computed: ${error?.message ?? error}`;
    console.error(`[scheduler toolpack] job ${job.id}: ${reason}; the job is failed`);
    job.status = 'failed';
    job.failedAt = iso(now);
    job.lastError = reason;
    job.lastErrorAt = iso(now);
  }
}

function busy(context, agentId) {
  if (typeof agentId !== 'string') return false;
  const agent = (Array.isArray(context.agents) ? context.agents : []).find((entry) => entry?.id === agentId);
  return agent !== undefined && (agent.modelAlive === true || agent.status === 'running');
}
