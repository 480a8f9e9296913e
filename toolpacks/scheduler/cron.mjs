// Cron expressions and time zones: node-cron validates an expression (5 or 6 fields, naming the
// field that is wrong), croner computes its fire times in an IANA zone. node-cron's own next-run walker
// is not used: it is wrong across DST changes (it skips a 02:30 job on a spring-forward day), croner is
// right (a 02:30 job fires once at 03:00 on a spring-forward day, and once, at the first 02:30, on a
// fall-back day). Both are dependencies of the gateway; a copy of this toolpack outside it needs them.

import { Cron } from 'croner';
import nodeCron from 'node-cron';
import { inputError } from './errors.mjs';

const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

/** A trimmed cron expression node-cron accepts, or a 400 naming the field that is wrong. */
export function checkCron(value) {
  const expression = typeof value === 'string' ? value.trim().replace(/\s+/g, ' ') : value;
  if (typeof expression !== 'string' || expression === '') {
    throw inputError(`cron must be a cron expression (5 or 6 fields), got ${JSON.stringify(value)}`);
  }
  const fields = expression.startsWith('@') ? 5 : expression.split(' ').length;
  if (fields < 5 || fields > 6) {
    // croner would take 7 fields (a year); node-cron and this toolpack do not.
    throw inputError(
      `cron must have 5 fields (minute hour day-of-month month day-of-week) or 6 (seconds first), got ${fields}: ${JSON.stringify(expression)}`,
    );
  }
  let result;
  try {
    result = nodeCron.validateDetailed(expression);
  } catch (error) {
    throw inputError(`cron ${JSON.stringify(expression)} is invalid: ${error?.message ?? error}`);
  }
  if (!result?.valid) {
    const problems = (result?.errors ?? [])
      .map((entry) => `the ${entry.field} field ${JSON.stringify(entry.value)} is invalid (${entry.message})`)
      .join('; ');
    throw inputError(`cron ${JSON.stringify(expression)} is invalid: ${problems || 'not a cron expression'}`);
  }
  return expression;
}

/** The canonical name of an IANA time zone (`europe/berlin` → `Europe/Berlin`), or a 400 naming `name`. */
export function checkTimezone(value, name = 'timezone') {
  const text = typeof value === 'string' ? value.trim() : '';
  let zone;
  if (ZONE_NAME.test(text)) {
    try {
      zone = new Intl.DateTimeFormat('en-US', { timeZone: text }).resolvedOptions().timeZone;
    } catch {
      zone = undefined;
    }
  }
  if (zone === undefined) {
    throw inputError(
      `${name} must be an IANA time zone such as Europe/Berlin, America/New_York or UTC, got ${JSON.stringify(value)}`,
    );
  }
  return zone;
}

/** The first fire time strictly after `afterMs`, in ms; undefined when the expression never fires again. */
export function cronNext(expression, timezone, afterMs) {
  const job = new Cron(expression, { timezone, paused: true });
  const next = job.nextRun(new Date(afterMs));
  return next ? next.getTime() : undefined;
}

const FORMATS = new Map(); // zone -> Intl.DateTimeFormat (a cache of formatters, not of state)

function formatter(timezone) {
  let format = FORMATS.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    FORMATS.set(timezone, format);
  }
  return format;
}

/** The wall time of `ms` in `timezone` (`2026-03-30T09:00:00`), and the zone's offset from UTC then. */
function wallClock(ms, timezone) {
  const parts = Object.fromEntries(
    formatter(timezone)
      .formatToParts(new Date(ms))
      .map((part) => [part.type, part.value]),
  );
  const wall = `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`;
  return { wall, offsetMs: Date.parse(`${wall}Z`) - Math.floor(ms / 1000) * 1000 };
}

const LOCAL_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2})?(\.\d{1,3})?$/;
const DAY = 86_400_000;

/** Whether `text` is an ISO date-time without `Z` or an offset: a wall time, whose zone must be chosen. */
export const isWallTime = (text) => typeof text === 'string' && LOCAL_TIME.test(text.trim());

/**
 * The UTC ms of an ISO date-time without an offset (`2026-03-30T09:00`), read as a wall time in
 * `timezone`; undefined for any other text (one with `Z` or an offset is absolute already). As with
 * cron, a wall time a fall-back repeats is the first one, and one a spring-forward skips is taken an
 * hour later.
 */
export function wallTimeIn(text, timezone) {
  const match = LOCAL_TIME.exec(text);
  if (!match) return undefined;
  const wall = `${match[1]}T${match[2]}${match[3] ?? ':00'}`;
  const naive = Date.parse(`${wall}${match[4] ?? ''}Z`);
  if (!Number.isFinite(naive)) return undefined;
  const offsets = [wallClock(naive - DAY, timezone).offsetMs, wallClock(naive + DAY, timezone).offsetMs];
  const exact = offsets
    .map((offset) => naive - offset)
    .filter((candidate) => wallClock(candidate, timezone).wall === wall);
  return exact.length > 0 ? Math.min(...exact) : naive - offsets[0];
}

/** `2026-03-30T09:00:00+02:00`: the wall time of `ms` in `timezone`, with its offset from UTC. */
export function zonedTime(ms, timezone) {
  const { wall, offsetMs } = wallClock(ms, timezone);
  const offsetMinutes = Math.round(offsetMs / 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const hours = String(Math.floor(Math.abs(offsetMinutes) / 60)).padStart(2, '0');
  const minutes = String(Math.abs(offsetMinutes) % 60).padStart(2, '0');
  return `${wall}${sign}${hours}:${minutes}`;
}
