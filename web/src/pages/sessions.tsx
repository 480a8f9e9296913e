// Every session across web chat, Slack and Discord: agent, channel, last activity, status and
// unread entries (since this browser last opened it), filtered and searched on the server, paged
// with "Load more", kept current by the events stream.
import { useState } from 'preact/hooks';
import { streamStateText } from '../events.js';
import { useMe } from '../me.js';
import { hrefOf } from '../router.js';
import { relativeTime, useNow } from '../time.js';
import { StatusBadge } from '../transcript/session-meta.js';
import type { SessionSummary } from '../transcript/types.js';
import { unreadCount } from '../transcript/unread.js';
import { type ListFilter, NO_FILTER, useSessionList } from '../transcript/use-session-list.js';
import './sessions.css';

export function SessionsPage() {
  const me = useMe();
  const [filter, setFilter] = useState<ListFilter>(NO_FILTER);
  const { state, loadMore, stream } = useSessionList(filter);
  return (
    <section aria-labelledby="page-title" class="sessions-page">
      <h2 id="page-title">Sessions</h2>
      <Filters filter={filter} onChange={setFilter} />
      <p class={`stream-state ${stream}`} role="status">
        {streamStateText(stream, me.senderId)}
      </p>
      {state.problem ? <p role="alert">{state.problem}</p> : null}
      <div aria-busy={state.loading} aria-live="polite">
        {state.loading ? (
          <p class="muted">Loading sessions…</p>
        ) : state.sessions.length === 0 ? (
          <p class="muted">No sessions{filter === NO_FILTER ? ' yet' : ' match'}.</p>
        ) : (
          <SessionTable sessions={state.sessions} />
        )}
      </div>
      {state.next ? (
        <button type="button" class="plain load-more" onClick={loadMore}>
          Load more
        </button>
      ) : null}
    </section>
  );
}

function Filters({ filter, onChange }: { filter: ListFilter; onChange(filter: ListFilter): void }) {
  const [draft, setDraft] = useState(filter);
  const set = (name: keyof ListFilter) => (event: Event) => {
    const next = { ...draft, [name]: (event.currentTarget as HTMLInputElement).value };
    setDraft(next);
    // Choices apply at once; typed text on submit (Enter) or leaving the field.
    if (name === 'channel' || name === 'status') onChange(next);
  };
  return (
    <form
      class="session-filters"
      aria-label="Filter sessions"
      onSubmit={(event) => {
        event.preventDefault();
        onChange(draft);
      }}
    >
      <label>
        Search
        <input
          type="search"
          value={draft.q}
          onInput={set('q')}
          onChange={() => onChange(draft)}
          placeholder="key or agent"
        />
      </label>
      <label>
        Agent
        <input value={draft.agent} onInput={set('agent')} onChange={() => onChange(draft)} />
      </label>
      <label>
        Channel
        <select value={draft.channel} onChange={set('channel')}>
          <option value="">any</option>
          <option value="webchat">web chat</option>
          <option value="slack">Slack</option>
          <option value="discord">Discord</option>
          <option value="internal">internal</option>
        </select>
      </label>
      <label>
        Status
        <select value={draft.status} onChange={set('status')}>
          <option value="">any</option>
          <option value="running">running</option>
          <option value="queued">queued</option>
          <option value="idle">idle</option>
        </select>
      </label>
      <button type="submit">Filter</button>
    </form>
  );
}

function SessionTable({ sessions }: { sessions: SessionSummary[] }) {
  const now = useNow();
  return (
    <table class="session-table">
      <thead>
        <tr>
          <th scope="col">Session</th>
          <th scope="col">Agent</th>
          <th scope="col">Channel</th>
          <th scope="col">Last activity</th>
          <th scope="col">Status</th>
          <th scope="col">Unread</th>
        </tr>
      </thead>
      <tbody>
        {sessions.map((session) => (
          <SessionRow key={session.key} session={session} now={now} />
        ))}
      </tbody>
    </table>
  );
}

function SessionRow({ session, now }: { session: SessionSummary; now: number }) {
  const unread = unreadCount(session);
  return (
    <tr data-key={session.key} class={unread > 0 ? 'unread' : undefined}>
      <td data-label="Session">
        <a
          href={hrefOf({ page: 'session', key: session.key })}
          title={session.title ? session.key : undefined}
        >
          {session.title ?? session.key}
        </a>
      </td>
      <td data-label="Agent">{session.agentId}</td>
      <td data-label="Channel">
        {session.channel} <span class="muted">{session.chatType}</span>
      </td>
      <td data-label="Last activity">
        <time dateTime={session.lastActivityAt} title={session.lastActivityAt}>
          {relativeTime(session.lastActivityAt, now)}
        </time>
      </td>
      <td data-label="Status">
        <StatusBadge status={session.status} />
      </td>
      <td data-label="Unread">
        {unread > 0 ? (
          <span class="badge unread-count" title={`${unread} entries since you last opened it`}>
            {unread} new
          </span>
        ) : (
          <span class="muted">—</span>
        )}
      </td>
    </tr>
  );
}
