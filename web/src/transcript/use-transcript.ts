// One session's transcript as the page holds it: the last page on open, earlier pages on demand,
// entries appended live from the events stream, and the summary (status, counts) kept current.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, problemText } from '../api.js';
import { useSessionStream } from './session-stream.js';
import { mergeEntries } from './turns.js';
import type { SessionStreamEvent, SessionSummary, TranscriptEntry, TranscriptPage } from './types.js';
import { markSeen } from './unread.js';

/** Entries per page: the last page on open, and each "Load earlier". */
const TRANSCRIPT_PAGE = 100;

export interface TranscriptState {
  loading: boolean;
  problem?: string;
  summary?: SessionSummary;
  sessionId?: string;
  entries: TranscriptEntry[];
  /** The `before` of the page further back, while there is one. */
  next?: number;
  loadingEarlier: boolean;
  /** The senders' display names the pages gave (`slack:U1` → `Ann`). */
  names: Record<string, string>;
}

const EMPTY: TranscriptState = { loading: true, entries: [], loadingEarlier: false, names: {} };

/** A summary from the stream, which carries no title: the title the page had stays. */
export function keepTitle(summary: SessionSummary, known: SessionSummary | undefined): SessionSummary {
  return summary.title === undefined && known?.title !== undefined
    ? { ...summary, title: known.title }
    : summary;
}

const pagePath = (key: string, before?: number) =>
  `/api/sessions/${encodeURIComponent(key)}/transcript?last=${TRANSCRIPT_PAGE}${
    before === undefined ? '' : `&before=${before}`
  }`;

export function useTranscript(key: string) {
  const [state, setState] = useState<TranscriptState>(EMPTY);
  const load = useCallback(async () => {
    setState(EMPTY);
    try {
      const page = await api<TranscriptPage>(pagePath(key));
      setState((current) => ({
        loading: false,
        sessionId: page.sessionId,
        // Live entries that came while the page was read stay.
        entries: mergeEntries(
          page.entries,
          current.sessionId === page.sessionId || current.sessionId === undefined ? current.entries : [],
        ),
        loadingEarlier: false,
        names: page.names ?? {},
        ...(page.summary ? { summary: page.summary } : {}),
        ...(page.next === undefined ? {} : { next: page.next }),
      }));
    } catch (error) {
      setState({ ...EMPTY, loading: false, problem: problemText(error) });
    }
  }, [key]);
  useEffect(() => {
    void load();
  }, [load]);

  const loadEarlier = useCallback(async () => {
    const before = state.next;
    if (before === undefined || state.loadingEarlier) return;
    setState((current) => ({ ...current, loadingEarlier: true }));
    try {
      const page = await api<TranscriptPage>(pagePath(key, before));
      setState((current) => {
        const { next: _old, ...rest } = current;
        return {
          ...rest,
          loadingEarlier: false,
          entries: mergeEntries(current.entries, page.entries),
          names: { ...page.names, ...current.names },
          ...(page.next === undefined ? {} : { next: page.next }),
        };
      });
    } catch (error) {
      setState((current) => ({ ...current, loadingEarlier: false, problem: problemText(error) }));
    }
  }, [key, state.next, state.loadingEarlier]);

  const onEvent = useCallback(
    (event: SessionStreamEvent) => {
      if (event.type === 'entry' && event.key === key) {
        // Also while the page is read: the merge keeps the entry the page may miss.
        setState((current) => ({ ...current, entries: mergeEntries(current.entries, [event.entry]) }));
      } else if (event.type === 'session' && event.summary.key === key) {
        // A new session id (`/new`): the transcript shown is the old one's; read the new one.
        if (state.sessionId !== undefined && event.summary.sessionId !== state.sessionId) void load();
        else setState((current) => ({ ...current, summary: keepTitle(event.summary, current.summary) }));
      }
    },
    [key, state.sessionId, load],
  );
  const stream = useSessionStream(onEvent);

  // What is on the page has been seen (unread counts on the list).
  const last = state.entries.at(-1);
  const seenLength = Math.max(state.summary?.transcriptLength ?? 0, last ? last.seq + 1 : 0);
  useEffect(() => {
    if (state.sessionId !== undefined) markSeen(key, state.sessionId, seenLength);
  }, [key, state.sessionId, seenLength]);

  return { state, loadEarlier, reload: load, stream };
}
