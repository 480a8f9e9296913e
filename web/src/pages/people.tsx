// The People page (#/people, owners): who may use the gateway, each person's role and linked
// platform identities (with Unlink), and the pairing requests waiting (Approve with a role, or
// Deny). Every change is a config edit through the editor (audited with its diff in the config
// history) that applies with the restart it schedules; the page refreshes itself, so the change
// shows once the gateway is back.
import './people.css';
import { useCallback, useState } from 'preact/hooks';
import type { PeopleView } from '../../../src/surfaces/control/contracts.js';
import { api } from '../api.js';
import { usePolled } from '../ops/polled.js';
import { PairingCard } from '../people/pairing-card.js';
import { PersonCard } from '../people/person-card.js';

const REFRESH_MS = 3000;

export function PeoplePage() {
  const load = useCallback(() => api<PeopleView>('/api/people'), []);
  const view = usePolled(load, REFRESH_MS);
  const [said, setSaid] = useState('');
  const done = (text: string) => {
    setSaid(text);
    void view.refresh();
  };
  const people = view.data?.people ?? [];
  const pairing = view.data?.pairing ?? [];
  const roles = view.data?.roles ?? ['member'];
  return (
    <section class="people-page" aria-labelledby="page-title" aria-busy={view.data === undefined}>
      <h2 id="page-title">People</h2>
      <p class="muted">
        Each person's role and linked accounts. A change is a config edit (see the Config page's history) and
        applies after the restart it starts; this page refreshes itself.
      </p>
      {view.problem ? <p role="alert">Could not load the people: {view.problem}</p> : null}
      <p class="said" role="status" aria-live="polite">
        {said}
      </p>
      <section aria-labelledby="pairing-title" aria-live="polite">
        <h3 id="pairing-title">Waiting to be let in ({pairing.length})</h3>
        {view.data && pairing.length === 0 ? <p class="muted empty">No pairing request waits.</p> : null}
        {pairing.map((request) => (
          <PairingCard key={request.code} request={request} roles={roles} onDone={done} />
        ))}
      </section>
      <section aria-labelledby="people-title">
        <h3 id="people-title">People ({people.length})</h3>
        {view.data && people.length === 0 ? (
          <p class="muted empty">
            Nobody is listed in <code>people</code>: owners come from <code>owners</code>, everyone else the
            channels let in is a member.
          </p>
        ) : null}
        <ul class="people" aria-label="People">
          {people.map((person) => (
            <PersonCard key={person.id} person={person} onDone={done} />
          ))}
        </ul>
      </section>
    </section>
  );
}
