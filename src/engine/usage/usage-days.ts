/**
 * Usage days: a day is a calendar date (`YYYY-MM-DD`) in `budgets.timeZone`, so a budget resets at
 * that zone's midnight. Intl does the zone arithmetic (daylight saving included); one formatter
 * per zone is kept, since building one costs far more than using it (a cache of a pure function
 * of the zone's name, like the config validator's: safe at module level).
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let found = formatters.get(timeZone);
  if (!found) {
    found = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, found);
  }
  return found;
}

/** The wall clock of `time` in `timeZone`, as if that wall clock were UTC (ms, whole seconds). */
function wallClockMs(time: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(time))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const { year = 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = parts;
  return Date.UTC(year, month - 1, day, hour, minute, second);
}

/** The calendar date of a UTC-based ms value as `YYYY-MM-DD`. */
function dateText(utcMs: number): string {
  return new Date(utcMs).toISOString().slice(0, 10);
}

/** The usage day `time` falls in, in `timeZone`. */
export function usageDay(time: Date, timeZone: string): string {
  return dateText(wallClockMs(time.getTime(), timeZone));
}

/** The last `count` usage days up to and including the day of `time`, oldest first. */
export function lastUsageDays(time: Date, timeZone: string, count: number): string[] {
  const today = Date.parse(`${usageDay(time, timeZone)}T00:00:00Z`);
  return Array.from({ length: count }, (_, index) => dateText(today - (count - 1 - index) * 86_400_000));
}

/**
 * When the day after the one `time` falls in starts in `timeZone` (its midnight): the instant
 * whose wall clock there reads the next date at 00:00. The zone's offset is read at the guess and
 * read again, which settles a midnight next to a daylight-saving change.
 */
export function nextUsageDayStart(time: Date, timeZone: string): Date {
  const today = Date.parse(`${usageDay(time, timeZone)}T00:00:00Z`);
  const midnight = today + 86_400_000;
  const offset = (at: number) => wallClockMs(at, timeZone) - Math.floor(at / 1000) * 1000;
  let instant = midnight - offset(midnight);
  instant = midnight - offset(instant);
  return new Date(instant);
}
