// Shown when the API answers 401. The token (the gateway's, from the log's `/?token=…` link,
// `<stateDir>/http-token` or `http.token`; or a user's `http.users.<name>.token`) is sent once to
// `POST /api/signin`, which keeps it in an HttpOnly cookie for 30 days; the page never stores it.
import { useState } from 'preact/hooks';
import { ApiError, api, problemText } from '../api.js';

export function SignInPage({ onSignedIn }: { onSignedIn(): void }) {
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const token = new FormData(event.currentTarget as HTMLFormElement).get('token');
    setBusy(true);
    setProblem(undefined);
    try {
      await api('/api/signin', { token });
      onSignedIn();
    } catch (error) {
      // A refused token is named by the gateway's message (never echoed); anything else as it is.
      setProblem(
        error instanceof ApiError && error.status === 401
          ? `Not signed in: ${error.message}.`
          : problemText(error),
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in" id="main">
      <h1>Switchboard: sign in</h1>
      <form onSubmit={submit} aria-busy={busy}>
        <label>
          Token <input name="token" type="password" autocomplete="current-password" required />
        </label>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        {problem && <p role="alert">{problem}</p>}
      </form>
      <p>
        Your own token is <code>http.users.&lt;your name&gt;.token</code> in the config. The operator signs in
        with the gateway token: the gateway log shows a link ending in <code>/?token=…</code>, and the token
        is in the file <code>http-token</code> in the gateway's state dir (<code>data/</code> by default), or{' '}
        <code>http.token</code>. This browser stays signed in for 30 days, or until you sign out.
      </p>
    </main>
  );
}
