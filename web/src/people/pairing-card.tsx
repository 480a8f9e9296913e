// A pairing request on the People page: the unknown sender who was given a code, since when and
// until when; Approve makes them a person with the chosen role, Deny drops the request.
import { useState } from 'preact/hooks';
import type { PairingRequestView, PeopleActionAnswer } from '../../../src/surfaces/control/contracts.js';
import { api, problemText } from '../api.js';
import { relativeTime } from '../time.js';
import { platformLabel } from './identity-label.js';

export function PairingCard(props: {
  request: PairingRequestView;
  roles: readonly string[];
  onDone(text: string): void;
}) {
  const { request, roles, onDone } = props;
  const [role, setRole] = useState(roles.includes('member') ? 'member' : (roles[0] ?? 'member'));
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const decide = async (decision: 'approve' | 'deny') => {
    setBusy(true);
    setProblem(undefined);
    try {
      const body = decision === 'approve' ? { decision, role } : { decision };
      const answer = await api<PeopleActionAnswer>(
        `/api/people/pairing/${encodeURIComponent(request.code)}`,
        body,
      );
      onDone(answer.text);
    } catch (error) {
      setProblem(`${request.code} was not decided: ${problemText(error)}`);
      setBusy(false);
    }
  };
  const id = `pairing-${request.code}`;
  return (
    <article class="card pairing" aria-labelledby={id} data-code={request.code}>
      <h4 id={id}>
        {platformLabel(request.identity)} <code>{request.identity}</code>
      </h4>
      <p class="muted meta">
        code <span class="code">{request.code}</span> · asked {relativeTime(request.requestedAt)} · expires{' '}
        {relativeTime(request.expiresAt)}
      </p>
      <div class="decide">
        <label>
          Role{' '}
          <select
            value={role}
            disabled={busy}
            onChange={(event) => setRole((event.currentTarget as HTMLSelectElement).value)}
          >
            {roles.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <button type="button" disabled={busy} onClick={() => void decide('approve')}>
          Approve
        </button>
        <button type="button" class="danger" disabled={busy} onClick={() => void decide('deny')}>
          Deny
        </button>
      </div>
      {problem ? <p role="alert">{problem}</p> : null}
    </article>
  );
}
