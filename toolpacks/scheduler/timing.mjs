// Time arithmetic of the scheduler: delays, intervals, weekly times and cron expressions (the last two
// in a time zone, through cron.mjs). Pure functions.

import { cronNext, wallTimeIn } from './cron.mjs';
import { inputError } from './errors.mjs';

export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const DAY_MS = 86_400_000;

const AFTER_UNITS = [
  ['afterMs', 1],
  ['afterSeconds', 1_000],
  ['afterMinutes', 60_000],
  ['afterHours', 3_600_000],
  ['afterDays', DAY_MS],
];
const EVERY_UNITS = [
  ['everyMs', 1],
  ['everyMinutes', 60_000],
  ['everyHours', 3_600_000],
  ['everyDays', DAY_MS],
];

/** A finite, non-negative number, or undefined when absent (undefined, null or ''). */
export function optionalAmount(value, name) {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw inputError(`${name} must be a finite number, got ${JSON.stringify(value)}`);
  }
  if (value < 0) throw inputError(`${name} must not be negative, got ${value}`);
  return value;
}

function summed(args, units) {
  let total = 0;
  for (const [name, factor] of units) total += (optionalAmount(args[name], name) ?? 0) * factor;
  if (!Number.isFinite(total) || total > 8.64e15) throw inputError('the delay or interval is too large');
  return Math.round(total);
}

/** The delay of schedule.once: the sum of afterMs/afterSeconds/afterMinutes/afterHours/afterDays. */
export const delayMs = (args) => summed(args, AFTER_UNITS);
/** The interval of schedule.recurring: the sum of everyMs/everyMinutes/everyHours/everyDays. */
export const intervalMs = (args) => summed(args, EVERY_UNITS);

/**
 * Milliseconds of an ISO timestamp; a clear error naming the field otherwise. One without `Z` or an
 * offset (`2030-01-07T09:30`) is a wall time in `timezone`, never in the server's own zone.
 */
export function timestamp(value, name, timezone = 'UTC') {
  const text = typeof value === 'string' ? value.trim() : '';
  const ms = text === '' ? Number.NaN : (wallTimeIn(text, timezone) ?? Date.parse(text));
  if (!Number.isFinite(ms)) {
    throw inputError(
      `${name} must be an ISO timestamp (e.g. 2030-01-07T09:30:00Z), got ${JSON.stringify(value)}`,
    );
  }
  return ms;
}

/** `HH:MM` (24-hour, in the job's time zone) → [hour, minute]. */
export function parseTime(value) {
  const match = typeof value === 'string' ? /^(\d{1,2}):(\d{2})$/.exec(value.trim()) : null;
  const hour = match ? Number(match[1]) : -1;
  const minute = match ? Number(match[2]) : -1;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59) {
    throw inputError(
      `time must be HH:MM (00:00 to 23:59, in the job's time zone), got ${JSON.stringify(value)}`,
    );
  }
  return [hour, minute];
}

export function parseWeekday(value) {
  const weekday = typeof value === 'string' ? value.trim().toLowerCase() : value;
  if (!WEEKDAYS.includes(weekday)) {
    throw inputError(`weekday must be one of ${WEEKDAYS.join(', ')}, got ${JSON.stringify(value)}`);
  }
  return weekday;
}

/**
 * The first due time strictly after `afterMs` of a recurring schedule: `interval` (`everyMs` after),
 * `weekly` (`weekday` `hour`:`minute` in `timezone`, UTC when absent) or `cron` (`cron` in `timezone`).
 * Wall times follow the zone's DST: a time a spring-forward skips fires once, an hour later; a time a
 * fall-back repeats fires once, the first time.
 */
export function nextOccurrence(schedule, afterMs) {
  if (schedule?.mode === 'interval') {
    const every = Math.trunc(Number(schedule.everyMs));
    if (!(every >= 1)) throw new Error(`invalid interval schedule: ${JSON.stringify(schedule)}`);
    return afterMs + every;
  }
  const zone = schedule?.timezone ?? 'UTC';
  let next;
  if (schedule?.mode === 'weekly') {
    const weekday = WEEKDAYS.indexOf(schedule.weekday);
    const hour = Number(schedule.hour);
    const minute = Number(schedule.minute);
    const valid = Number.isInteger(hour) && hour >= 0 && hour <= 23 && Number.isInteger(minute);
    if (weekday < 0 || !valid || minute < 0 || minute > 59) {
      throw new Error(`invalid weekly schedule: ${JSON.stringify(schedule)}`);
    }
    next = cronNext(`${minute} ${hour} * * ${weekday}`, zone, afterMs);
  } else if (schedule?.mode === 'cron' && typeof schedule.cron === 'string') {
    next = cronNext(schedule.cron, zone, afterMs);
  } else {
    throw new Error(`invalid recurring schedule: ${JSON.stringify(schedule)}`);
  }
  if (next === undefined) throw new Error(`the schedule ${JSON.stringify(schedule)} never fires again`);
  return next;
}

/** The next `count` due times from `firstMs` (itself the first): what a confirmation and the list show. */
export function upcoming(schedule, firstMs, count = 3) {
  const times = [firstMs];
  while (times.length < count) {
    try {
      times.push(nextOccurrence(schedule, times[times.length - 1]));
    } catch {
      break;
    }
  }
  return times;
}

/** The first due time of a new recurring job: not before `startMs` when that is in the future. */
export function firstOccurrence(schedule, now, startMs) {
  if (startMs === undefined || startMs <= now) return nextOccurrence(schedule, now);
  if (schedule.mode === 'interval') return startMs;
  return nextOccurrence(schedule, startMs - 1);
}

export const iso = (ms) => new Date(ms).toISOString();
