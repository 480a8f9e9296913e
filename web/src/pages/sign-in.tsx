// Shown when the API answers 401: the token (from the gateway log's link, `<stateDir>/http-token`,
// `http.token`, or a user's `http.users.<name>.token`) is sent once and kept in an HttpOnly cookie.
import { useState } from 'preact/hooks';
import { api, problemText } from '../api.js';

export function SignInPage({ onSignedIn }: { onSignedIn(): void }) {
  const [problem, setProblem] = useState<string>();
  const submit = async (event: Event) => {
    event.preventDefault();
    const token = new FormData(event.currentTarget as HTMLFormElement).get('token');
    try {
      await api('/api/signin', { token });
      onSignedIn();
    } catch (error) {
      setProblem(problemText(error));
    }
  };
  return (
    <main class="sign-in">
      <h1>Switchboard: sign in</h1>
      <form onSubmit={submit}>
        <label>
          Token <input name="token" type="password" autocomplete="current-password" required />
        </label>
        <button type="submit">Sign in</button>
        {problem && <p role="alert">{problem}</p>}
      </form>
      <p>
        The gateway log shows a link ending in <code>/?token=…</code>; the token is also in{' '}
        <code>&lt;stateDir&gt;/http-token</code>, or <code>http.token</code> in the config.
      </p>
    </main>
  );
}
