// A view refreshed from the API while the page is open: loaded at once, then every `everyMs`
// (polling: an inbox or a health page changes rarely, and a request a second is cheap). A failed
// refresh keeps the last data and says why; the page shows it with role="alert".
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { problemText } from '../api.js';

export interface Polled<T> {
  data: T | undefined;
  /** Why the last refresh failed; undefined after a good one. */
  problem: string | undefined;
  /** A refresh is under way (the first load, or `refresh()`). */
  busy: boolean;
  /** Loads again now (after a decision, say). */
  refresh(): Promise<void>;
}

export function usePolled<T>(load: () => Promise<T>, everyMs: number): Polled<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(true);
  const mounted = useRef(true);
  const refresh = useCallback(async () => {
    setBusy(true);
    try {
      const loaded = await load();
      if (!mounted.current) return;
      setData(loaded);
      setProblem(undefined);
    } catch (error) {
      if (mounted.current) setProblem(problemText(error));
    } finally {
      if (mounted.current) setBusy(false);
    }
  }, [load]);
  useEffect(() => {
    mounted.current = true;
    void refresh();
    const timer = setInterval(() => void refresh(), everyMs);
    return () => {
      mounted.current = false;
      clearInterval(timer);
    };
  }, [refresh, everyMs]);
  return { data, problem, busy, refresh };
}

/** "3 min ago", "in 4 min", or the date for what is more than a day away. */
export function relativeTime(iso: string, now = Date.now()): string {
  const ms = Date.parse(iso) - now;
  const minutes = Math.round(Math.abs(ms) / 60_000);
  if (Number.isNaN(ms)) return iso;
  if (minutes < 1) return ms < 0 ? 'just now' : 'in under a minute';
  if (minutes >= 24 * 60) return new Date(iso).toLocaleString();
  const span = minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
  return ms < 0 ? `${span} ago` : `in ${span}`;
}

/** A duration in seconds as "2 d 3 h", "4 h 5 min", "6 min 7 s". */
export function durationText(seconds: number): string {
  const d = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (d > 0) return `${d} d ${h} h`;
  if (h > 0) return `${h} h ${m} min`;
  return m > 0 ? `${m} min ${s} s` : `${s} s`;
}
