// The schedule of schedule.recurring: exactly one of an every* interval, weekday plus time, or cron,
// and the time zone of the last two.

import { checkCron, checkTimezone } from './cron.mjs';
import { scheduleText } from './describe.mjs';
import { inputError } from './errors.mjs';
import { optionalString } from './input.mjs';
import { firstOccurrence, intervalMs, parseTime, parseWeekday, timestamp } from './timing.mjs';

const NEEDS =
  'schedule.recurring needs a positive interval (everyMs, everyMinutes, everyHours or everyDays) or weekday plus time (HH:MM) or cron (5 or 6 fields)';

/**
 * `{ schedule, zoneNote }`: the schedule as jobs.json keeps it (`{ mode: 'interval', everyMs }`,
 * `{ mode: 'weekly', weekday, hour, minute, timezone }`, `{ mode: 'cron', cron, timezone }`), and how
 * its time zone was chosen, for the confirmation.
 */
export function recurringSchedule(context, args) {
  const every = intervalMs(args);
  const weekday = optionalString(args.weekday, 'weekday');
  const time = optionalString(args.time, 'time');
  const cron = optionalString(args.cron, 'cron');
  const timezone = optionalString(args.timezone, 'timezone');
  const kinds = [
    every > 0 ? 'an every* interval' : undefined,
    weekday !== undefined || time !== undefined ? 'weekday plus time' : undefined,
    cron !== undefined ? 'cron' : undefined,
  ].filter((kind) => kind !== undefined);
  if (kinds.length > 1) {
    throw inputError(
      `schedule.recurring takes one of an every* interval, weekday plus time, or cron, not both (got ${kinds.join(' and ')})`,
    );
  }
  if (every > 0) {
    if (timezone !== undefined) {
      throw inputError('timezone applies to weekday plus time and to cron; an every* interval has none');
    }
    return { schedule: { mode: 'interval', everyMs: every }, zoneNote: undefined };
  }
  if (cron !== undefined) {
    const expression = checkCron(cron);
    const zone = timezone === undefined ? defaultZone(context) : explicitZone(timezone);
    return { schedule: { mode: 'cron', cron: expression, timezone: zone.timezone }, zoneNote: zone.note };
  }
  if (weekday === undefined || time === undefined) throw inputError(NEEDS);
  const [hour, minute] = parseTime(time);
  const zone = timezone === undefined ? defaultZone(context) : explicitZone(timezone);
  return {
    schedule: { mode: 'weekly', weekday: parseWeekday(weekday), hour, minute, timezone: zone.timezone },
    zoneNote: zone.note,
  };
}

function explicitZone(value) {
  const timezone = checkTimezone(value, 'timezone');
  return { timezone, note: timezone };
}

/**
 * The zone of a cron or weekly job that names none: the config's `scheduler.timezone` (itself UTC by
 * default, so Suzumio's "weekly UTC" holds unless the config says otherwise), else UTC, saying which.
 */
export function defaultZone(context) {
  const configured = context.store.config()?.scheduler?.timezone;
  if (typeof configured === 'string' && configured.trim() !== '') {
    try {
      const timezone = checkTimezone(configured, 'scheduler.timezone');
      return { timezone, note: `${timezone} (the default, from scheduler.timezone)` };
    } catch {
      return {
        timezone: 'UTC',
        note: `UTC (scheduler.timezone ${JSON.stringify(configured)} is not a time zone; give timezone)`,
      };
    }
  }
  return {
    timezone: 'UTC',
    note: 'UTC (no timezone given, and this host offers no scheduler.timezone: UTC is the fallback)',
  };
}

/**
 * `{ schedule, nextAt, zoneNote }` of a recurring job from schedule.recurring's arguments at `now`:
 * `startAt` (in the schedule's zone) kept in the schedule; a schedule that never fires is refused.
 */
export function recurringTiming(context, args, now) {
  const { schedule, zoneNote } = recurringSchedule(context, args);
  const startAt = optionalString(args.startAt, 'startAt');
  const startZone = schedule.timezone ?? defaultZone(context).timezone;
  const startMs = startAt === undefined ? undefined : timestamp(startAt, 'startAt', startZone);
  let nextAt;
  try {
    nextAt = firstOccurrence(schedule, now, startMs);
  } catch {
    throw inputError(`the schedule ${scheduleText({ type: 'recurring', schedule })} never fires`);
  }
  return { schedule: startAt === undefined ? schedule : { ...schedule, startAt }, nextAt, zoneNote };
}
