// How a job reads in a confirmation, in schedule.list and in the WebUI panel.

import { zonedTime } from './cron.mjs';
import { lastRun } from './runs.mjs';
import { upcoming } from './timing.mjs';

/** The job's schedule in words: `every 10 min`, `weekly mon 09:00 Europe/Berlin`, `cron "0 9 * * 1-5" Europe/Berlin`. */
export function scheduleText(job) {
  const schedule = job.schedule ?? {};
  if (job.type === 'once') return 'once';
  if (schedule.mode === 'interval') return `every ${duration(schedule.everyMs)}`;
  const zone = schedule.timezone ?? 'UTC';
  if (schedule.mode === 'weekly') {
    const time = `${String(schedule.hour).padStart(2, '0')}:${String(schedule.minute).padStart(2, '0')}`;
    return `weekly ${schedule.weekday} ${time} ${zone}`;
  }
  if (schedule.mode === 'cron') return `cron "${schedule.cron}" ${zone}`;
  return 'unknown schedule';
}

const UNITS = [
  [86_400_000, 'd'],
  [3_600_000, 'h'],
  [60_000, 'min'],
  [1_000, 's'],
];

/** `2 h`, `90 min`, `1500 ms`: the largest unit that divides the interval. */
function duration(ms) {
  for (const [size, unit] of UNITS) if (ms % size === 0) return `${ms / size} ${unit}`;
  return `${ms} ms`;
}

/**
 * The next fire times of an active job (three for a recurring job, its one time for a once job), each
 * `{ utc, local, timezone }`: `local` is the wall time in the job's zone with its offset.
 */
export function nextRuns(job) {
  if (job.status !== 'active' || typeof job.nextAt !== 'string') return [];
  const first = Date.parse(job.nextAt);
  if (!Number.isFinite(first)) return [];
  const zone = job.schedule?.timezone ?? 'UTC';
  const times = job.type === 'recurring' ? upcoming(job.schedule, first, 3) : [first];
  return times.map((ms) => {
    const utc = new Date(ms).toISOString();
    try {
      return { utc, local: zonedTime(ms, zone), timezone: zone };
    } catch {
      // A zone edited into jobs.json by hand that this runtime does not know: shown in UTC.
      return { utc, local: zonedTime(ms, 'UTC'), timezone: 'UTC' };
    }
  });
}

export function nextRunLines(runs, indent = '  ') {
  return runs.map((run) =>
    run.timezone === 'UTC' ? `${indent}${run.utc}` : `${indent}${run.local} ${run.timezone} = ${run.utc} UTC`,
  );
}

/** A job's entry in schedule.list: its summary line, its next times and its latest run. */
export function describeJob(job) {
  const route = job.recipient ?? job.channel ?? 'no target';
  const quiet = job.waitForQuiet ? ', waits for quiet' : '';
  const next = job.status === 'active' ? `next ${job.nextAt}` : `last sent ${job.lastSentAt ?? 'never'}`;
  const body = String(job.body ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  const short = body.length <= 140 ? body : `${body.slice(0, 137)}...`;
  const lines = [
    `- ${job.id} [${job.status}/${job.type}] ${next}, ${job.priority} ${job.sender} -> ${route}, sent ${job.sentCount ?? 0}${quiet}: ${short}`,
    `  schedule: ${scheduleText(job)}`,
  ];
  const runs = nextRuns(job);
  if (job.type === 'recurring' && runs.length > 0) lines.push('  next runs:', ...nextRunLines(runs, '    '));
  const run = lastRun(job);
  if (run) lines.push(`  last run: ${runText(run)}`);
  const skipped = Array.isArray(job.runs) ? job.runs.filter((entry) => entry?.state === 'skipped').length : 0;
  if (skipped > 0)
    lines.push(
      `  skipped (previous message not delivered): ${skipped} of the last ${job.runs.length} firings`,
    );
  return lines.join('\n');
}

export function runText(run) {
  const parts = [run.at, run.state];
  if (run.messageId) parts.push(run.messageId);
  if (run.deliveredAt) parts.push(`delivered ${run.deliveredAt}`);
  if (run.error) parts.push(`error: ${run.error}`);
  return parts.join(' ');
}
