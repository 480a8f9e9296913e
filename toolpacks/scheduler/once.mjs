// When a once job fires: `at` (an ISO time; without an offset, a wall time in the configured zone) or
// a delay (afterMs … afterDays) from now.

import { isWallTime } from './cron.mjs';
import { inputError } from './errors.mjs';
import { optionalString } from './input.mjs';
import { defaultZone } from './recurring.mjs';
import { delayMs, timestamp } from './timing.mjs';

/** `{ nextAt, schedule, zoneNote }` of a once job from schedule.once's arguments at `now`. */
export function onceTiming(context, args, now) {
  const at = optionalString(args.at, 'at');
  if (at !== undefined) {
    // Without an offset, `at` is a wall time in the configured zone (UTC when none), said so.
    const zone = isWallTime(at) ? defaultZone(context) : undefined;
    return {
      nextAt: timestamp(at, 'at', zone?.timezone),
      schedule: zone === undefined ? { at } : { at, timezone: zone.timezone },
      zoneNote:
        zone === undefined ? undefined : `${zone.note}; at has no UTC offset, so it is read in this zone`,
    };
  }
  const delay = delayMs(args);
  if (delay <= 0) {
    throw inputError(
      'schedule.once needs `at` (an ISO timestamp) or a positive delay in afterMs, afterSeconds, afterMinutes, afterHours or afterDays',
    );
  }
  return { nextAt: now + delay, schedule: { afterMs: delay }, zoneNote: undefined };
}
