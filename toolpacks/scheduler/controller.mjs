// The scheduler controller: owns jobs.json, answers the tools and WebUI entries, and fires due jobs
// from the scheduler tick through store.sendMessage.
//
// Clock: the tick uses its context's `now` (ms; Date.now() when absent); tool and WebUI calls use
// Date.now(). Tests drive the tick with their own `now` and fake Date for tool calls.

import { randomUUID } from 'node:crypto';
import { jobsFile, withJobs } from './state.mjs';
import {
  delayMs,
  firstOccurrence,
  inputError,
  intervalMs,
  iso,
  nextOccurrence,
  parseTime,
  parseWeekday,
  timestamp,
} from './timing.mjs';

const PRIORITIES = ['P0', 'P1', 'P2', 'P3'];
/** A once job whose message could not be sent (say, its route was removed) is tried again this much later. */
const RETRY_MS = 60_000;

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

// --- tools -----------------------------------------------------------------------------------------

function scheduleOnce(context, args) {
  const now = Date.now();
  const delivery = deliveryFields(context, args);
  const at = optionalString(args.at, 'at');
  let nextAt;
  let schedule;
  if (at !== undefined) {
    nextAt = timestamp(at, 'at');
    schedule = { at };
  } else {
    const delay = delayMs(args);
    if (delay <= 0) {
      throw inputError(
        'schedule.once needs `at` (an ISO timestamp) or a positive delay in afterMs, afterSeconds, afterMinutes, afterHours or afterDays',
      );
    }
    nextAt = now + delay;
    schedule = { afterMs: delay };
  }
  return createJob(context, { type: 'once', now, nextAt, schedule, ...delivery });
}

function scheduleRecurring(context, args) {
  const now = Date.now();
  const delivery = deliveryFields(context, args);
  const every = intervalMs(args);
  const weekday = optionalString(args.weekday, 'weekday');
  const time = optionalString(args.time, 'time');
  let schedule;
  if (every > 0) {
    if (weekday !== undefined || time !== undefined) {
      throw inputError('schedule.recurring takes an every* interval or weekday plus time, not both');
    }
    schedule = { mode: 'interval', everyMs: every };
  } else {
    if (weekday === undefined || time === undefined) {
      throw inputError(
        'schedule.recurring needs a positive interval (everyMs, everyMinutes, everyHours or everyDays) or weekday plus time (HH:MM, UTC)',
      );
    }
    const [hour, minute] = parseTime(time);
    schedule = { mode: 'weekly', weekday: parseWeekday(weekday), hour, minute, timezone: 'UTC' };
  }
  const startAt = optionalString(args.startAt, 'startAt');
  const startMs = startAt === undefined ? undefined : timestamp(startAt, 'startAt');
  const nextAt = firstOccurrence(schedule, now, startMs);
  return createJob(context, {
    type: 'recurring',
    now,
    nextAt,
    schedule: startAt === undefined ? schedule : { ...schedule, startAt },
    ...delivery,
  });
}

async function createJob(context, { type, now, nextAt, schedule, ...delivery }) {
  const job = {
    id: `sch_${randomUUID()}`,
    type,
    status: 'active',
    createdAt: iso(now),
    nextAt: iso(nextAt),
    sentCount: 0,
    ...delivery,
    schedule,
  };
  await withJobs(jobsFile(context.store), (state) => {
    state.jobs.push(job);
    if (state.hint !== undefined) state.hint = Math.min(state.hint, nextAt);
    return { save: true };
  });
  const route = job.recipient ?? job.channel;
  return {
    title: 'scheduled message created',
    output: [
      `Scheduled ${job.id} (${type}).`,
      `Next: ${job.nextAt}`,
      `Route: ${job.sender} -> ${route}`,
      `Priority: ${job.priority}`,
    ].join('\n'),
    metadata: { job },
  };
}

async function scheduleList(context, args) {
  const includeInactive = optionalBoolean(args.includeInactive, 'includeInactive') ?? false;
  const jobs = await withJobs(jobsFile(context.store), (state) => ({ value: state.jobs.slice() }));
  const count = (status) => jobs.filter((job) => job.status === status).length;
  const shown = includeInactive ? jobs : jobs.filter((job) => job.status === 'active');
  const metrics = [
    { label: 'Active', value: count('active') },
    { label: 'Done', value: count('done') },
    { label: 'Cancelled', value: count('cancelled') },
  ];
  const lines = shown.length > 0 ? shown.map(describeJob) : ['- none'];
  return {
    title: 'scheduled messages',
    output: ['Scheduled messages:', ...lines].join('\n'),
    metadata: { metrics, jobs: shown },
  };
}

async function scheduleCancel(context, args) {
  const id = requiredString(args.id, 'id');
  return withJobs(jobsFile(context.store), (state) => {
    const job = state.jobs.find((candidate) => candidate.id === id);
    if (!job) throw inputError(`no scheduled job ${id} (see schedule.list with includeInactive)`);
    if (job.status !== 'active') {
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

// --- the tick --------------------------------------------------------------------------------------

const parsedNextAt = new WeakMap(); // job -> { text, ms }
const reportedUnreadable = new WeakSet(); // jobs whose bad nextAt was logged once

/** A job's due time in ms, parsed once per nextAt text; NaN when unreadable. */
function dueMs(job) {
  const known = parsedNextAt.get(job);
  if (known && known.text === job.nextAt) return known.ms;
  const ms = typeof job.nextAt === 'string' ? Date.parse(job.nextAt) : Number.NaN;
  parsedNextAt.set(job, { text: job.nextAt, ms });
  return ms;
}

/**
 * Sends every active job due at `now`, once. `state.hint` is the earliest due time of the active
 * jobs (a memo, recomputed on each scan), so a tick with nothing due does no scan. A job due while
 * its waitForQuiet recipient is busy stays due and is looked at again on the next tick.
 */
function fireDueJobs(context, now) {
  return withJobs(jobsFile(context.store), (state) => {
    if (state.hint !== undefined && state.hint > now) return {};
    let earliest = Number.POSITIVE_INFINITY;
    let changed = false;
    for (const job of state.jobs) {
      if (job.status !== 'active') continue;
      const due = dueMs(job);
      if (Number.isNaN(due)) {
        if (!reportedUnreadable.has(job)) {
          reportedUnreadable.add(job);
          console.error(
            `[scheduler toolpack] job ${job.id} has an unreadable nextAt ${JSON.stringify(job.nextAt)}; skipped`,
          );
        }
        continue;
      }
      if (due > now || (job.waitForQuiet === true && busy(context, job.recipient))) {
        earliest = Math.min(earliest, due);
        continue;
      }
      fire(context, job, now);
      changed = true;
      if (job.status === 'active') earliest = Math.min(earliest, dueMs(job));
    }
    state.hint = earliest;
    return { save: changed };
  });
}

function fire(context, job, now) {
  let message;
  const sentCount = Number.isInteger(job.sentCount) && job.sentCount > 0 ? job.sentCount : 0;
  try {
    message = context.store.sendMessage({
      sender: job.sender,
      recipient: job.recipient,
      channel: job.channel,
      priority: job.priority ?? 'P3',
      body: job.body,
      // This firing's name (Switchboard; Suzumio ignores it): when the process is killed after the
      // send and before jobs.json says so, the same firing after the restart is not sent again.
      sendKey: `${job.id}:${sentCount + 1}`,
    });
  } catch (error) {
    console.error(`[scheduler toolpack] job ${job.id} could not be sent: ${error?.message ?? error}`);
    job.lastError = String(error?.message ?? error);
    job.lastErrorAt = iso(now);
    job.nextAt = iso(job.type === 'recurring' ? safeNext(job, now) : now + RETRY_MS);
    return;
  }
  job.sentCount = sentCount + 1;
  job.lastSentAt = iso(now);
  job.lastMessageId = message?.id;
  delete job.lastError;
  delete job.lastErrorAt;
  if (job.type === 'recurring') {
    // From now, not from the missed due time: a job missed during downtime fires once, then resumes.
    job.nextAt = iso(safeNext(job, now));
  } else {
    job.status = 'done';
    job.completedAt = iso(now);
  }
}

function safeNext(job, now) {
  try {
    return nextOccurrence(job.schedule, now);
  } catch (error) {
    console.error(`[scheduler toolpack] job ${job.id}: ${error.message}; retrying in a minute`);
    return now + RETRY_MS;
  }
}

function busy(context, agentId) {
  if (typeof agentId !== 'string') return false;
  const agent = (Array.isArray(context.agents) ? context.agents : []).find((entry) => entry?.id === agentId);
  return agent !== undefined && (agent.modelAlive === true || agent.status === 'running');
}

// --- input -----------------------------------------------------------------------------------------

/** sender, recipient or channel (checked against the roster and routes), priority, waitForQuiet, body. */
function deliveryFields(context, args) {
  const body = requiredString(args.body, 'body');
  const sender = optionalString(args.sender, 'sender') ?? 'scheduler';
  const priority = optionalString(args.priority, 'priority') ?? 'P3';
  if (!PRIORITIES.includes(priority)) {
    throw inputError(`priority must be one of ${PRIORITIES.join(', ')}, got ${JSON.stringify(priority)}`);
  }
  const waitForQuiet = optionalBoolean(args.waitForQuiet, 'waitForQuiet') ?? false;
  const recipient = optionalString(args.recipient, 'recipient');
  const channel = optionalString(args.channel, 'channel');
  if (recipient !== undefined && channel !== undefined) {
    throw inputError('give either recipient or channel, not both');
  }
  const common = { sender, priority, waitForQuiet, body };
  if (channel !== undefined) {
    const channels = context.store.config().channels ?? [];
    if (!channels.includes(channel)) {
      const known = channels.length > 0 ? channels.join(', ') : 'none configured';
      throw inputError(`unknown channel ${channel} (routes: ${known})`);
    }
    return { ...common, channel };
  }
  const agents = context.store.listAgents();
  const target = recipient ?? defaultRecipient(context, agents);
  if (target !== 'user' && !agents.some((agent) => agent.id === target)) {
    const known = agents.map((agent) => agent.id).join(', ') || 'none';
    throw inputError(`unknown recipient ${target} (agents: ${known}, or user)`);
  }
  return { ...common, recipient: target };
}

function defaultRecipient(context, agents) {
  const coordinator = context.store.config().communication?.coordinatorAgent;
  if (agents.some((agent) => agent.id === coordinator)) return coordinator;
  return agents[0]?.id ?? 'user';
}

function objectInput(input) {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw inputError('the input must be an object');
  }
  return input;
}

function requiredString(value, name) {
  if (typeof value !== 'string' || value.trim() === '')
    throw inputError(`${name} is required (a non-empty string)`);
  return value;
}

/** A trimmed non-empty string, or undefined when absent or blank (forms send ''). */
function optionalString(value, name) {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw inputError(`${name} must be a string, got ${JSON.stringify(value)}`);
  return value.trim() === '' ? undefined : value.trim();
}

function optionalBoolean(value, name) {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean')
    throw inputError(`${name} must be true or false, got ${JSON.stringify(value)}`);
  return value;
}

function describeJob(job) {
  const route = job.recipient ?? job.channel ?? 'no target';
  const quiet = job.waitForQuiet ? ', waits for quiet' : '';
  const next = job.status === 'active' ? `next ${job.nextAt}` : `last sent ${job.lastSentAt ?? 'never'}`;
  const body = String(job.body ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  const short = body.length <= 140 ? body : `${body.slice(0, 137)}...`;
  return `- ${job.id} [${job.status}/${job.type}] ${next}, ${job.priority} ${job.sender} -> ${route}, sent ${job.sentCount ?? 0}${quiet}: ${short}`;
}
