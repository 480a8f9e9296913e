// The scheduler controller: owns jobs.json, answers the tools and WebUI entries, and fires due jobs
// from the scheduler tick through store.sendMessage (tick.mjs).
//
// Clock: the tick uses its context's `now` (ms; Date.now() when absent); tool and WebUI calls use
// Date.now(). Tests drive the tick with their own `now` and fake Date for tool calls.

import { randomUUID } from 'node:crypto';
import { describeJob, nextRunLines, nextRuns, scheduleText } from './describe.mjs';
import { inputError } from './errors.mjs';
import { deliveryFields, objectInput, optionalBoolean, requiredString } from './input.mjs';
import { editJob, pauseJob, resumeJob, runJobNow } from './manage.mjs';
import { onceTiming } from './once.mjs';
import { recurringTiming } from './recurring.mjs';
import { pendingRun, settleRuns } from './runs.mjs';
import { jobsFile, withJobs } from './state.mjs';
import { fireDueJobs } from './tick.mjs';
import { iso } from './timing.mjs';

export function createControllerToolpack(context) {
  return { tools: handlers(context) };
}

export function createWebuiToolpack(context) {
  const tools = handlers(context);
  return {
    webui: {
      'schedule.jobs': tools['schedule.list'],
      'schedule.once': tools['schedule.once'],
      'schedule.recurring': tools['schedule.recurring'],
      'schedule.cancel': tools['schedule.cancel'],
      // The Schedules page's own (Switchboard; not in Suzumio's manifest, and not model tools).
      'schedule.pause': (input) => pauseJob(context, objectInput(input)),
      'schedule.resume': (input) => resumeJob(context, objectInput(input)),
      'schedule.runNow': (input) => runJobNow(context, objectInput(input)),
      'schedule.edit': (input) => editJob(context, objectInput(input)),
    },
  };
}

export async function schedulerTick(context) {
  const now = Number.isFinite(context?.now) ? context.now : Date.now();
  await fireDueJobs(context, now);
  return [];
}

function handlers(context) {
  return {
    'schedule.once': (input) => scheduleOnce(context, objectInput(input)),
    'schedule.recurring': (input) => scheduleRecurring(context, objectInput(input)),
    'schedule.list': (input) => scheduleList(context, objectInput(input ?? {})),
    'schedule.cancel': (input) => scheduleCancel(context, objectInput(input)),
  };
}

function scheduleOnce(context, args) {
  const now = Date.now();
  const delivery = deliveryFields(context, args);
  const { nextAt, schedule, zoneNote } = onceTiming(context, args, now);
  return createJob(context, { type: 'once', now, nextAt, schedule, zoneNote, ...delivery });
}

function scheduleRecurring(context, args) {
  const now = Date.now();
  const delivery = deliveryFields(context, args);
  const { schedule, nextAt, zoneNote } = recurringTiming(context, args, now);
  return createJob(context, {
    type: 'recurring',
    now,
    nextAt,
    schedule,
    zoneNote,
    ...delivery,
  });
}

async function createJob(context, { type, now, nextAt, schedule, zoneNote, ...delivery }) {
  const job = {
    id: `sch_${randomUUID()}`,
    type,
    status: 'active',
    createdAt: iso(now),
    nextAt: iso(nextAt),
    sentCount: 0,
    ...delivery,
    // Switchboard: the chat sender whose turn made the job; each firing's wake turn is charged to
    // them (their budget), after a restart too. Absent in hosts without it (Suzumio) and for WebUI jobs.
    ...(typeof context.chargedTo === 'string' ? { chargedTo: context.chargedTo } : {}),
    schedule,
    runs: [],
  };
  await withJobs(jobsFile(context.store), (state) => {
    state.jobs.push(job);
    if (state.hint !== undefined) state.hint = Math.min(state.hint, nextAt);
    return { save: true };
  });
  const route = job.recipient ?? job.channel;
  const upcoming = nextRuns(job);
  const lines = [`Scheduled ${job.id} (${type}).`, `Next: ${job.nextAt}`];
  if (type === 'recurring') lines.push(`Schedule: ${scheduleText(job)}`);
  if (zoneNote !== undefined) lines.push(`Time zone: ${zoneNote}`);
  if (type === 'recurring') lines.push('Next runs:', ...nextRunLines(upcoming));
  lines.push(`Route: ${job.sender} -> ${route}`, `Priority: ${job.priority}`);
  return {
    title: 'scheduled message created',
    output: lines.join('\n'),
    metadata: { job: { ...job, nextRuns: upcoming } },
  };
}

async function scheduleList(context, args) {
  const includeInactive = optionalBoolean(args.includeInactive, 'includeInactive') ?? false;
  // The receipts of pending sends are asked for first, so the list shows what was delivered by now.
  const jobs = await withJobs(jobsFile(context.store), async (state) => {
    let changed = false;
    for (const job of state.jobs) {
      if (!pendingRun(job)) continue;
      if (await settleRuns(context.store, job, Date.now())) changed = true;
    }
    return { save: changed, value: structuredClone(state.jobs) };
  });
  const count = (status) => jobs.filter((job) => job.status === status).length;
  // Paused jobs are not inactive: they are shown with the active ones.
  const shown = includeInactive
    ? jobs
    : jobs.filter((job) => job.status === 'active' || job.status === 'paused');
  const metrics = [
    { label: 'Active', value: count('active') },
    { label: 'Done', value: count('done') },
    { label: 'Cancelled', value: count('cancelled') },
    { label: 'Failed', value: count('failed') },
  ];
  const lines = shown.length > 0 ? shown.map(describeJob) : ['- none'];
  return {
    title: 'scheduled messages',
    output: ['Scheduled messages:', ...lines].join('\n'),
    metadata: { metrics, jobs: shown.map((job) => ({ ...job, nextRuns: nextRuns(job) })) },
  };
}

async function scheduleCancel(context, args) {
  const id = requiredString(args.id, 'id');
  return withJobs(jobsFile(context.store), (state) => {
    const job = state.jobs.find((candidate) => candidate.id === id);
    if (!job) throw inputError(`no scheduled job ${id} (see schedule.list with includeInactive)`);
    if (job.status !== 'active' && job.status !== 'paused') {
      return {
        value: {
          title: 'scheduled message not active',
          output: `${id} is already ${job.status}; nothing to cancel.`,
          metadata: { job },
        },
      };
    }
    job.status = 'cancelled';
    job.cancelledAt = iso(Date.now());
    return {
      save: true,
      value: { title: 'scheduled message cancelled', output: `Cancelled ${id}.`, metadata: { job } },
    };
  });
}
