// The sessions list as the page holds it: a page from the store with the filters, "Load more"
// with `next`, and sessions brought up to date (or added at the top) from the events stream.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, problemText } from '../api.js';
import { useSessionStream } from './session-stream.js';
import type { SessionPage, SessionStreamEvent, SessionSummary } from './types.js';
import { keepTitle } from './use-transcript.js';

const LIST_PAGE = 50;

export interface ListFilter {
  agent: string;
  channel: string;
  status: string;
  q: string;
}

export const NO_FILTER: ListFilter = { agent: '', channel: '', status: '', q: '' };

export interface ListState {
  loading: boolean;
  problem?: string;
  sessions: SessionSummary[];
  next?: string;
}

function listPath(filter: ListFilter, cursor?: string): string {
  const query = new URLSearchParams({ limit: String(LIST_PAGE) });
  for (const [name, value] of Object.entries(filter)) if (value.trim()) query.set(name, value.trim());
  if (cursor) query.set('cursor', cursor);
  return `/api/sessions?${query}`;
}

/** The server's filter, for a session the stream brings (the list's own rule, in the page). */
function matchesFilter(summary: SessionSummary, filter: ListFilter): boolean {
  const q = filter.q.trim().toLowerCase();
  return (
    (!filter.agent.trim() || summary.agentId === filter.agent.trim()) &&
    (!filter.channel || summary.channel === filter.channel) &&
    (!filter.status || summary.status === filter.status) &&
    (!q || summary.key.toLowerCase().includes(q) || summary.agentId.toLowerCase().includes(q))
  );
}

const byActivity = (a: SessionSummary, b: SessionSummary) => b.lastActivityAt.localeCompare(a.lastActivityAt);

export function useSessionList(filter: ListFilter) {
  const [state, setState] = useState<ListState>({ loading: true, sessions: [] });
  useEffect(() => {
    let current = true;
    setState({ loading: true, sessions: [] });
    api<SessionPage>(listPath(filter))
      .then((page) => current && setState({ loading: false, ...page }))
      .catch(
        (error: unknown) =>
          current && setState({ loading: false, sessions: [], problem: problemText(error) }),
      );
    return () => {
      current = false;
    };
  }, [filter]);

  const loadMore = useCallback(async () => {
    if (!state.next) return;
    try {
      const page = await api<SessionPage>(listPath(filter, state.next));
      setState((current) => {
        const known = new Set(current.sessions.map((session) => session.key));
        const { next: _old, ...rest } = current;
        return {
          ...rest,
          sessions: [...current.sessions, ...page.sessions.filter((session) => !known.has(session.key))],
          ...(page.next ? { next: page.next } : {}),
        };
      });
    } catch (error) {
      setState((current) => ({ ...current, problem: problemText(error) }));
    }
  }, [filter, state.next]);

  const onEvent = useCallback(
    (event: SessionStreamEvent) => {
      if (event.type !== 'session') return;
      const { summary } = event;
      setState((current) => {
        const others = current.sessions.filter((session) => session.key !== summary.key);
        const known = current.sessions.find((session) => session.key === summary.key);
        // A session that no longer matches leaves; a new match joins at its place by activity.
        if (!matchesFilter(summary, filter)) return known ? { ...current, sessions: others } : current;
        return { ...current, sessions: [...others, keepTitle(summary, known)].sort(byActivity) };
      });
    },
    [filter],
  );
  const stream = useSessionStream(onEvent);
  return { state, loadMore, stream };
}
