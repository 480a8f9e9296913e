// One approval request in the inbox: what would run, for whom, until when, and (for one of its
// approvers) Approve and Deny. The arguments and details are shown as text (the API scrubbed
// them of secrets; they may quote anything, so never as HTML).
import { useState } from 'preact/hooks';
import type { ApprovalView } from '../../../src/surfaces/control/contracts.js';
import { api, problemText } from '../api.js';
import { hrefOf } from '../router.js';
import { relativeTime } from '../time.js';

export type { ApprovalView };

interface CardProps {
  request: ApprovalView;
  /** The signed-in sender: only a request's approvers are offered its buttons. */
  senderId: string;
  /** Links to the session's transcript (owners only see sessions). */
  owner: boolean;
  /** After a decision (or a refusal): the inbox reloads, and says what happened. */
  onDecided(text: string): void;
}

export function ApprovalCard({ request, senderId, owner, onDecided }: CardProps) {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const mayDecide = request.approvers.includes(senderId);
  const decide = async (decision: 'approve' | 'deny') => {
    setBusy(true);
    setProblem(undefined);
    try {
      const answer = await api<{ text: string }>(`/api/approvals/${encodeURIComponent(request.id)}`, {
        decision,
      });
      onDecided(answer.text);
    } catch (error) {
      setProblem(`${request.code} was not decided: ${problemText(error)}`);
      setBusy(false);
    }
  };
  const what = request.kind === 'tool' ? request.tool : `/${request.tool} (held command)`;
  return (
    <article class="card approval" aria-labelledby={`approval-${request.id}`} data-approval={request.id}>
      <h3 id={`approval-${request.id}`}>
        {what} <span class="code">{request.code}</span>
      </h3>
      <p class="muted meta">
        agent {request.agentId} · asked by {request.requester} · {relativeTime(request.createdAt)} · in{' '}
        {owner ? (
          <a href={hrefOf({ page: 'session', key: request.sessionKey })}>{request.sessionKey}</a>
        ) : (
          request.sessionKey
        )}
      </p>
      <p class="expires">Denied without a decision {relativeTime(request.expiresAt)}.</p>
      <h4>Arguments</h4>
      <pre class="arguments">{request.arguments}</pre>
      {request.details ? (
        <>
          <h4>Change</h4>
          <pre class="details">{request.details}</pre>
        </>
      ) : null}
      {mayDecide ? (
        <div class="decide">
          <button type="button" disabled={busy} onClick={() => void decide('approve')}>
            Approve
          </button>
          <button type="button" class="danger" disabled={busy} onClick={() => void decide('deny')}>
            Deny
          </button>
        </div>
      ) : (
        <p class="muted">Only {request.approvers.join(', ')} may decide this one.</p>
      )}
      {problem ? <p role="alert">{problem}</p> : null}
    </article>
  );
}

/** A decided request's line: what, the outcome, by whom, when, why. */
export function DecidedRow({ request }: { request: ApprovalView }) {
  const when = request.decidedAt ?? request.createdAt;
  return (
    <li data-approval={request.id}>
      <strong>{request.kind === 'tool' ? request.tool : `/${request.tool}`}</strong>{' '}
      <span class="code">{request.code}</span>{' '}
      <span class={`badge ${toneOf(request.status)}`}>{statusWord(request.status)}</span> by{' '}
      <span class="by">{request.decidedBy ?? 'nobody'}</span>,{' '}
      <time dateTime={when} title={when}>
        {relativeTime(when)}
      </time>
      {request.reason ? <span class="reason"> ({request.reason})</span> : null}
    </li>
  );
}

/** The badge's tone: approved ones ok, refused ones bad, a pending one waits. */
function toneOf(status: ApprovalView['status']): 'ok' | 'warn' | 'bad' {
  if (status === 'approved' || status === 'used') return 'ok';
  return status === 'pending' ? 'warn' : 'bad';
}

function statusWord(status: ApprovalView['status']): string {
  switch (status) {
    case 'approved':
      return 'approved, running';
    case 'used':
      return 'approved';
    default:
      return status;
  }
}
