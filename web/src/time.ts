// Times and durations as every page writes them, in one style: "12 s", "4 min", "4 h 5 min",
// "2 d 3 h" (the larger unit and the next one, a zero part left out); "3 min ago", "in 4 min".
import { useEffect, useState } from 'preact/hooks';

/** The time now, again every `everyMs`: relative times ("3 min ago") stay true on an open page. */
export function useNow(everyMs = 30_000): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

/** A duration in whole seconds as "2 d 3 h", "4 h 5 min", "6 min 7 s", "7 s". */
export function durationText(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  const parts: [number, string][] = [
    [Math.floor(whole / 86_400), 'd'],
    [Math.floor((whole % 86_400) / 3600), 'h'],
    [Math.floor((whole % 3600) / 60), 'min'],
    [whole % 60, 's'],
  ];
  const first = parts.findIndex(([amount]) => amount > 0);
  if (first < 0) return '0 s';
  return parts
    .slice(first, first + 2)
    .filter(([amount]) => amount > 0)
    .map(([amount, unit]) => `${amount} ${unit}`)
    .join(' ');
}

/** "just now", "3 min ago", "in 4 min", "2 d 3 h ago" for an ISO time, to the minute. */
export function relativeTime(iso: string, now = Date.now()): string {
  const ms = Date.parse(iso) - now;
  if (Number.isNaN(ms)) return iso;
  const minutes = Math.round(Math.abs(ms) / 60_000);
  if (minutes < 1) return ms < 0 ? 'just now' : 'in under a minute';
  const span = durationText(minutes * 60);
  return ms < 0 ? `${span} ago` : `in ${span}`;
}
