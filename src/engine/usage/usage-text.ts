/** How usage reads in chat messages: counts with separators, costs, durations. */

export function count(value: number): string {
  return value.toLocaleString('en-US');
}

/** A cost as the config's currency (unnamed): four decimals, enough for a single cheap call. */
export function money(value: number): string {
  return value.toFixed(4);
}

/** A time to wait, in whole minutes (at least one): `1 h 30 min`, `12 min`. */
export function duration(ms: number): string {
  const minutes = Math.max(1, Math.ceil(ms / 60_000));
  const hours = Math.floor(minutes / 60);
  return hours > 0 ? `${hours} h ${minutes % 60} min` : `${minutes} min`;
}
