// How a scheduled job reads on the Schedules page: its schedule in words, its target, its runs.
import type { JobRun, ScheduledJob } from './schedules-api.js';

const UNITS: [number, string][] = [
  [86_400_000, 'd'],
  [3_600_000, 'h'],
  [60_000, 'min'],
  [1_000, 's'],
];

/** `every 10 min`, `weekly mon 09:00 Europe/Berlin`, `cron 0 9 * * 1-5 (UTC)`, `once`. */
export function scheduleText(job: ScheduledJob): string {
  const { schedule } = job;
  if (job.type === 'once') return schedule.at ? `once at ${schedule.at}` : 'once';
  if (schedule.mode === 'interval' && schedule.everyMs !== undefined) {
    const [size, unit] = UNITS.find(([size]) => (schedule.everyMs ?? 0) % size === 0) ?? [1, 'ms'];
    return `every ${(schedule.everyMs ?? 0) / size} ${unit}`;
  }
  const zone = schedule.timezone ?? 'UTC';
  if (schedule.mode === 'weekly') {
    const time = `${String(schedule.hour).padStart(2, '0')}:${String(schedule.minute).padStart(2, '0')}`;
    return `weekly ${schedule.weekday} ${time} (${zone})`;
  }
  if (schedule.mode === 'cron') return `cron ${schedule.cron} (${zone})`;
  return 'unknown schedule';
}

export const targetText = (job: ScheduledJob): string => job.recipient ?? job.channel ?? 'no target';

/** The newest run that sent something or failed to (a skipped firing sent nothing). */
export function lastRun(job: ScheduledJob): JobRun | undefined {
  return (job.runs ?? []).findLast((run) => run.state !== 'skipped');
}

/** A wall time with its offset (`2030-01-08T08:30:00+01:00`) as `2030-01-08 08:30` (the zone is shown beside it). */
export function wallText(local: string): string {
  return local
    .replace('T', ' ')
    .replace(/(?:[+-]\d\d:\d\d|Z)$/, '')
    .replace(/\.\d+$/, '')
    .replace(/(\d\d:\d\d):00$/, '$1');
}

/** A UTC ISO time as `2030-01-08 07:30 UTC`. */
export function utcText(utc: string): string {
  return `${utc.slice(0, 16).replace('T', ' ')} UTC`;
}
