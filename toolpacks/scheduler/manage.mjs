// What the control UI's Schedules page does to one job beyond create and cancel (WebUI entries only;
// the model's tools are Suzumio's four): pause, resume, run now and edit.
//
// A paused job keeps its schedule and fires nothing (the tick fires only `active` jobs); resuming
// moves a recurring job to its next time after now (the paused times are not caught up) and leaves a
// once job's time as it was (a time passed while paused fires at the next tick). Run now sends the
// message at once, as a firing of the job, and leaves a recurring job's schedule as it is.

import { nextRuns } from './describe.mjs';
import { inputError } from './errors.mjs';
import { deliveryFields, optionalBoolean, optionalString, requiredString } from './input.mjs';
import { onceTiming } from './once.mjs';
import { recurringTiming } from './recurring.mjs';
import { pendingRun } from './runs.mjs';
import { jobsFile, withJobs } from './state.mjs';
import { fireNow } from './tick.mjs';
import { iso, nextOccurrence } from './timing.mjs';

/** The fields of schedule.recurring that make its schedule; any one of them given replaces it. */
const RECURRING_FIELDS = [
  'everyMs',
  'everyMinutes',
  'everyHours',
  'everyDays',
  'weekday',
  'time',
  'cron',
  'timezone',
  'startAt',
];
const ONCE_FIELDS = ['at', 'afterMs', 'afterSeconds', 'afterMinutes', 'afterHours', 'afterDays'];

/** Runs `change(job, state)` on the job `args.id` names, saving the file; answers with the job as listed. */
function withJob(context, args, title, change) {
  const id = requiredString(args.id, 'id');
  return withJobs(jobsFile(context.store), async (state) => {
    const job = state.jobs.find((candidate) => candidate.id === id);
    if (!job) throw inputError(`no scheduled job ${id} (see schedule.list with includeInactive)`);
    const output = await change(job, Date.now());
    // The tick's memo of the earliest due time is stale now: it scans again.
    state.hint = undefined;
    return { save: true, value: { title, output, metadata: { job: { ...job, nextRuns: nextRuns(job) } } } };
  });
}

function mustBe(job, statuses, verb) {
  if (!statuses.includes(job.status))
    throw inputError(`${job.id} is ${job.status}; only ${statuses.join(' or ')} jobs can be ${verb}`);
}

export function pauseJob(context, args) {
  return withJob(context, args, 'scheduled message paused', (job, now) => {
    mustBe(job, ['active'], 'paused');
    job.status = 'paused';
    job.pausedAt = iso(now);
    return `Paused ${job.id}; it sends nothing until resumed.`;
  });
}

export function resumeJob(context, args) {
  return withJob(context, args, 'scheduled message resumed', (job, now) => {
    mustBe(job, ['paused'], 'resumed');
    job.status = 'active';
    delete job.pausedAt;
    if (job.type === 'recurring') job.nextAt = iso(nextOccurrence(job.schedule, now));
    return `Resumed ${job.id}. Next: ${job.nextAt}`;
  });
}

export function runJobNow(context, args) {
  return withJob(context, args, 'scheduled message sent now', (job, now) => {
    mustBe(job, job.type === 'once' ? ['active'] : ['active', 'paused'], 'run now');
    if (job.type === 'once' && pendingRun(job))
      throw inputError(`${job.id} was sent and waits for its receipt`);
    const run = fireNow(context, job, now);
    if (run.state === 'failed') return `${job.id} could not be sent: ${run.error}`;
    if (run.state === 'skipped') return `${job.id} sent nothing: ${run.error}`;
    return `Sent ${job.id} now${run.messageId ? ` (message ${run.messageId})` : ''}.`;
  });
}

/**
 * Changes a job's message, route, priority or schedule. Fields left out (or blank, as a form sends
 * them) keep the job's values; any schedule field replaces the whole schedule, checked as a new job's.
 */
export function editJob(context, args) {
  return withJob(context, args, 'scheduled message changed', (job, now) => {
    mustBe(job, ['active', 'paused'], 'edited');
    const given = (name) => args[name] !== undefined && args[name] !== null && args[name] !== '';
    const route =
      given('recipient') || given('channel') ? {} : { recipient: job.recipient, channel: job.channel };
    const delivery = deliveryFields(context, {
      body: optionalString(args.body, 'body') ?? job.body,
      sender: optionalString(args.sender, 'sender') ?? job.sender,
      priority: optionalString(args.priority, 'priority') ?? job.priority,
      waitForQuiet: optionalBoolean(args.waitForQuiet, 'waitForQuiet') ?? job.waitForQuiet,
      ...route,
      ...(given('recipient') ? { recipient: args.recipient } : {}),
      ...(given('channel') ? { channel: args.channel } : {}),
    });
    const timing = newTiming(context, job, args, given, now);
    delete job.recipient;
    delete job.channel;
    Object.assign(job, delivery);
    if (timing !== undefined) {
      job.schedule = timing.schedule;
      job.nextAt = iso(timing.nextAt);
    }
    job.updatedAt = iso(now);
    return [
      `Changed ${job.id}.`,
      `Next: ${job.nextAt}`,
      ...(timing?.zoneNote ? [`Time zone: ${timing.zoneNote}`] : []),
    ].join('\n');
  });
}

/** `cron applies`, `at, afterHours apply`. */
const fieldList = (names) => `${names.join(', ')} ${names.length === 1 ? 'applies' : 'apply'}`;

function newTiming(context, job, args, given, now) {
  if (job.type === 'once') {
    const wrong = RECURRING_FIELDS.filter(given);
    if (wrong.length > 0) throw inputError(`${job.id} is a once job: ${fieldList(wrong)} to recurring jobs`);
    return ONCE_FIELDS.some(given) ? onceTiming(context, args, now) : undefined;
  }
  const wrong = ONCE_FIELDS.filter(given);
  if (wrong.length > 0) throw inputError(`${job.id} is a recurring job: ${fieldList(wrong)} to once jobs`);
  if (!RECURRING_FIELDS.some(given)) return undefined;
  return recurringTiming(context, args, now);
}
