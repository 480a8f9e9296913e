// A session's facts in one line: agent, channel and chat type, status badge, entries, activity.
import { relativeTime, useNow } from '../time.js';
import type { SessionSummary } from './types.js';

export function StatusBadge({ status }: { status: SessionSummary['status'] }) {
  return <span class={`badge ${status}`}>{status}</span>;
}

export function SessionMeta({ summary }: { summary: SessionSummary }) {
  const now = useNow();
  return (
    <dl class="session-meta">
      <div>
        <dt>Agent</dt>
        <dd>{summary.agentId}</dd>
      </div>
      <div>
        <dt>Channel</dt>
        <dd>
          {summary.channel} · {summary.chatType}
        </dd>
      </div>
      <div>
        <dt>Status</dt>
        <dd aria-live="polite">
          <StatusBadge status={summary.status} />
        </dd>
      </div>
      <div>
        <dt>Entries</dt>
        <dd>{summary.transcriptLength}</dd>
      </div>
      <div>
        <dt>Last activity</dt>
        <dd>
          <time dateTime={summary.lastActivityAt} title={summary.lastActivityAt}>
            {relativeTime(summary.lastActivityAt, now)}
          </time>
        </dd>
      </div>
    </dl>
  );
}
