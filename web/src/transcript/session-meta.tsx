// A session's facts in one line: agent, channel and chat type, status badge, entries, activity.
import { useEffect, useState } from 'preact/hooks';
import type { SessionSummary } from './types.js';

/** The time now, again every `everyMs`: relative times ("3 min ago") stay true on an open page. */
export function useNow(everyMs = 30_000): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

export function StatusBadge({ status }: { status: SessionSummary['status'] }) {
  return <span class={`badge ${status}`}>{status}</span>;
}

/** "3 min ago" for an ISO time (the exact time is its title). */
export function ago(iso: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.round(hours / 24)} days ago`;
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
            {ago(summary.lastActivityAt, now)}
          </time>
        </dd>
      </div>
    </dl>
  );
}
