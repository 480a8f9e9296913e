// One session: its facts and live status, its transcript (paged back with "Load earlier", live
// appends over the events stream), its sub-agents and the reply box (the session-actions lane's
// components, mounted here).
import { useEffect, useRef } from 'preact/hooks';
import { streamStateText } from '../events.js';
import { useMe } from '../me.js';
import { ReplyBox } from '../session/reply-box.js';
import { SubagentsPanel } from '../session/subagents-panel.js';
import { SessionMeta } from '../transcript/session-meta.js';
import { TranscriptView } from '../transcript/transcript-view.js';
import { useTranscript } from '../transcript/use-transcript.js';
import './session.css';

export function SessionPage({ sessionKey }: { sessionKey: string }) {
  const me = useMe();
  const { state, loadEarlier, stream } = useTranscript(sessionKey);
  const transcript = useRef<HTMLDivElement>(null);
  // Opened: the latest entries in view, just above the reply box (the page's top is a scroll away).
  useEffect(() => {
    if (!state.loading)
      transcript.current?.lastElementChild?.lastElementChild?.scrollIntoView({ block: 'nearest' });
  }, [state.loading]);
  return (
    <section aria-labelledby="page-title" class="session-page">
      <p class="crumbs">
        <a href="#/sessions">← Sessions</a>
      </p>
      <h2 id="page-title" class={state.summary?.title ? 'session-title' : 'session-key'}>
        {state.summary?.title ?? sessionKey}
      </h2>
      {state.summary?.title ? <p class="session-key muted">{sessionKey}</p> : null}
      {state.summary ? <SessionMeta summary={state.summary} /> : null}
      <p class={`stream-state ${stream}`} role="status">
        {streamStateText(stream, me.senderId)}
      </p>
      {state.problem ? <p role="alert">{state.problem}</p> : null}
      <section aria-labelledby="transcript-title" aria-busy={state.loading} class="transcript-box">
        <h3 id="transcript-title">Transcript</h3>
        {state.next !== undefined ? (
          <button
            type="button"
            class="plain load-earlier"
            onClick={loadEarlier}
            disabled={state.loadingEarlier}
          >
            {state.loadingEarlier ? 'Loading…' : 'Load earlier'}
          </button>
        ) : null}
        {state.loading ? (
          <p class="muted">Loading the transcript…</p>
        ) : (
          <div aria-live="polite" aria-relevant="additions" ref={transcript}>
            <TranscriptView entries={state.entries} names={state.names} />
          </div>
        )}
      </section>
      <ReplyBox sessionKey={sessionKey} />
      <SubagentsPanel sessionKey={sessionKey} />
    </section>
  );
}
