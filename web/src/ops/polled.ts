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
