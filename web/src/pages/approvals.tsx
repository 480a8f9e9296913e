// The approvals inbox (#/approvals): the requests waiting for a decision, with Approve and Deny for
// their approvers, and the recently decided ones with who decided and when. Refreshed every 3 s,
// so a request posted in a chat appears here too, and one decided in a chat leaves.
import './approvals.css';
import { useCallback, useState } from 'preact/hooks';
import { api } from '../api.js';
import { useMe } from '../me.js';
import { ApprovalCard, type ApprovalView, DecidedRow } from '../ops/approval-card.js';
import { usePolled } from '../ops/polled.js';

interface Inbox {
  open: ApprovalView[];
  decided: ApprovalView[];
}

const REFRESH_MS = 3000;

export function ApprovalsPage() {
  const me = useMe();
  const load = useCallback(() => api<Inbox>('/api/approvals'), []);
  const inbox = usePolled(load, REFRESH_MS);
  const [said, setSaid] = useState('');
  const decided = (text: string) => {
    setSaid(text);
    void inbox.refresh();
  };
  const open = inbox.data?.open ?? [];
  const closed = inbox.data?.decided ?? [];
  return (
    <section class="approvals-page" aria-labelledby="page-title" aria-busy={inbox.data === undefined}>
      <h2 id="page-title">Approvals</h2>
      <p class="muted">Tool calls and held commands waiting for a decision. This page refreshes itself.</p>
      {inbox.problem ? <p role="alert">Could not load the approvals: {inbox.problem}</p> : null}
      <p class="said" role="status" aria-live="polite">
        {said}
      </p>
      <section aria-labelledby="waiting-title" aria-live="polite">
        <h3 id="waiting-title">Waiting ({open.length})</h3>
        {inbox.data && open.length === 0 ? <p class="muted empty">Nothing waits for a decision.</p> : null}
        {open.map((request) => (
          <ApprovalCard
            key={request.id}
            request={request}
            senderId={me.senderId}
            owner={me.owner}
            onDecided={decided}
          />
        ))}
      </section>
      <section aria-labelledby="decided-title">
        <h3 id="decided-title">Decided</h3>
        {inbox.data && closed.length === 0 ? <p class="muted">None yet.</p> : null}
        {closed.length > 0 ? (
          <ul class="decided">
            {closed.map((request) => (
              <DecidedRow key={request.id} request={request} />
            ))}
          </ul>
        ) : null}
      </section>
    </section>
  );
}
