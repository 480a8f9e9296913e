// The Setup page (owner only; the control UI opens on it while no model answers): the steps of
// `switchboard setup` as a form. Saving proves every answer (the model by one call, Slack and
// Discord by their APIs), writes the secrets to the env file and the config with `${NAME}` only,
// and restarts the gateway onto it. Typed secrets are cleared once sent; the gateway never answers them.
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { SetupAnswer, SetupBody, SetupView } from '../../../src/surfaces/control/contracts.js';
import { ApiError, api, problemText } from '../api.js';
import { RestartWait } from '../config/restart-wait.js';
import { emptyForm, fieldId, SECRET_FIELDS, type SetupForm, setupBody } from '../setup/setup-form.js';
import { ModelStep, OwnersStep, PlatformSteps } from '../setup/setup-steps.js';
import './setup.css';

type Loaded =
  | { state: 'loading' }
  | { state: 'failed'; problem: string }
  | { state: 'ready'; view: SetupView };

export function SetupPage() {
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  const [form, setForm] = useState<SetupForm | undefined>(undefined);
  const [refusal, setRefusal] = useState<{ field?: string; message: string } | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<SetupAnswer | undefined>(undefined);
  const load = useCallback(async () => {
    setLoaded({ state: 'loading' });
    try {
      const view = await api<SetupView>('/api/config/setup');
      setLoaded({ state: 'ready', view });
      setForm(emptyForm(view));
    } catch (error) {
      setLoaded({ state: 'failed', problem: problemText(error) });
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (loaded.state !== 'ready' || !form) return;
    setBusy(true);
    setRefusal(undefined);
    try {
      const body: SetupBody = setupBody(form, loaded.view.hash);
      const answer = await api<SetupAnswer>('/api/config/setup', body);
      setForm(emptyForm(loaded.view));
      setDone(answer);
    } catch (error) {
      const field = error instanceof ApiError ? error.field : undefined;
      // A refused secret is typed again; the others stay for the next try.
      if (field && SECRET_FIELDS.includes(field)) setForm({ ...form, [field]: '' });
      setRefusal({ ...(field ? { field } : {}), message: problemText(error) });
      if (field) document.getElementById(fieldId(field))?.focus();
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="page-title" class="setup-page" aria-busy={loaded.state === 'loading' || busy}>
      <h2 id="page-title">Setup</h2>
      {loaded.state === 'loading' && <p role="status">Loading…</p>}
      {loaded.state === 'failed' && <p role="alert">{loaded.problem}</p>}
      {done && (
        <SetupDone
          done={done}
          onDone={() => {
            setDone(undefined);
            void load();
          }}
        />
      )}
      {loaded.state === 'ready' && form && !done && (
        <form class="setup-form" onSubmit={submit} noValidate>
          <p class="setup-intro">
            {loaded.view.modelConfigured
              ? 'Run it again to add Slack or Discord, or to change the model or the owners.'
              : 'No model answers yet, so the chat cannot reply. Set one up here (the same steps as npx switchboard setup).'}{' '}
            Each answer is tried before anything is written. Secrets go to <code>{loaded.view.envFile}</code>{' '}
            (mode 0600); the config names them only, as <code>{'${NAME}'}</code>. Saving restarts the gateway:
            the model and the platforms are read when it starts.
          </p>
          <ModelStep view={loaded.view} form={form} onChange={setForm} />
          <PlatformSteps view={loaded.view} form={form} onChange={setForm} />
          <OwnersStep view={loaded.view} form={form} onChange={setForm} />
          {refusal && (
            <p role="alert" class="setup-refusal" id="setup-refusal">
              {refusal.field && <strong>{refusal.field}: </strong>}
              {refusal.message}
            </p>
          )}
          <div class="setup-actions">
            <button type="submit" disabled={busy}>
              {busy ? 'Trying each answer…' : 'Check and save'}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

/** What was written, the Discord invite, then the restart and its note. */
function SetupDone({ done, onDone }: { done: SetupAnswer; onDone(): void }) {
  return (
    <div class="setup-done">
      <section class="card" aria-labelledby="setup-done-title">
        <h3 id="setup-done-title">Proved and written</h3>
        <ul>
          {done.proofs.map((proof) => (
            <li key={proof.step}>
              {proof.step}: {proof.text}
            </li>
          ))}
          {done.written.length > 0 && (
            <li>
              {done.written.join(', ')} written to <code>{done.envFile}</code> (mode 0600)
            </li>
          )}
        </ul>
        {done.invite && (
          <p>
            Invite the bot to your Discord server:{' '}
            <a href={done.invite} target="_blank" rel="noreferrer noopener">
              {done.invite}
            </a>
          </p>
        )}
      </section>
      <RestartWait
        saved={{
          outcome: {
            changed: done.changedPaths.length > 0,
            changedPaths: done.changedPaths,
            ...(done.restart ? { restart: done.restart } : {}),
            ...(done.restartNeeded ? { restartNeeded: true } : {}),
          },
          note: done.note,
        }}
        onDone={onDone}
        doneLabel="Back to setup"
      />
      <p>
        Then say hello in the <a href="#/chat">Chat</a>.
      </p>
    </div>
  );
}
