// One person of `people` on the People page: their name, id and role, and each linked identity
// with Unlink. Unlinking asks once more (it ends that account's access as this person); the
// answer (or the refusal) goes to the page's status line.
import { useState } from 'preact/hooks';
import type { PeopleActionAnswer, PersonView } from '../../../src/surfaces/control/contracts.js';
import { api, problemText } from '../api.js';
import { platformLabel } from './identity-label.js';

export function PersonCard({ person, onDone }: { person: PersonView; onDone(text: string): void }) {
  const [asking, setAsking] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const unlink = async (identity: string) => {
    setBusy(true);
    setProblem(undefined);
    try {
      const answer = await api<PeopleActionAnswer>(`/api/people/${encodeURIComponent(person.id)}/unlink`, {
        identity,
      });
      setAsking(undefined);
      onDone(answer.text);
    } catch (error) {
      setProblem(`${identity} was not unlinked: ${problemText(error)}`);
    } finally {
      setBusy(false);
    }
  };
  const title = `person-${person.id}`;
  return (
    <li class="card person" aria-labelledby={title} data-person={person.id}>
      <h4 id={title}>
        {person.displayName ?? person.id} <span class="badge idle">{person.role}</span>
      </h4>
      {person.displayName === undefined ? null : <p class="muted meta">id {person.id}</p>}
      {person.identities.length === 0 ? <p class="muted">No linked identity.</p> : null}
      <ul class="identities" aria-label={`Identities of ${person.id}`}>
        {person.identities.map((identity) => (
          <li key={identity} data-identity={identity}>
            <span class="platform">{platformLabel(identity)}</span> <code>{identity}</code>
            {asking === identity ? (
              <span class="confirm">
                <span>Unlink it from {person.id}?</span>
                <button
                  type="button"
                  class="danger"
                  disabled={busy}
                  onClick={() => void unlink(identity)}
                  aria-label={`Yes, unlink ${identity} from ${person.id}`}
                >
                  Unlink
                </button>
                <button type="button" class="plain" disabled={busy} onClick={() => setAsking(undefined)}>
                  Keep
                </button>
              </span>
            ) : (
              <button
                type="button"
                class="plain"
                onClick={() => setAsking(identity)}
                aria-label={`Unlink ${identity} from ${person.id}`}
              >
                Unlink
              </button>
            )}
          </li>
        ))}
      </ul>
      {problem ? <p role="alert">{problem}</p> : null}
    </li>
  );
}
