// The control UI's shell: who is signed in, the navigation, and the page the hash names.
// Owner-only pages are not offered to other users (and their API refuses them: 403).
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError, api, problemText, SIGNED_OUT_EVENT } from './api.js';
import { forgetChatStorage } from './chat/chat-storage.js';
import { type Me, MeContext } from './me.js';
import { ApprovalsPage } from './pages/approvals.js';
import { ChatPage } from './pages/chat.js';
import { ConfigPage } from './pages/config.js';
import { HealthPage } from './pages/health.js';
import { LogsPage } from './pages/logs.js';
import { PeoplePage } from './pages/people.js';
import { SchedulesPage } from './pages/schedules.js';
import { SessionPage } from './pages/session.js';
import { SessionsPage } from './pages/sessions.js';
import { SetupPage } from './pages/setup.js';
import { SignInPage } from './pages/sign-in.js';
import { ToolsPage } from './pages/tools.js';
import { hrefOf, type PageName, type Route, useRoute } from './router.js';

interface NavItem {
  page: PageName;
  label: string;
}

/** Each shown when the signed-in role's pages give it (`me.pages`, from `roles.<name>.pages`). */
const NAV: readonly NavItem[] = [
  { page: 'chat', label: 'Chat' },
  { page: 'sessions', label: 'Sessions' },
  { page: 'approvals', label: 'Approvals' },
  { page: 'tools', label: 'Tools' },
  { page: 'schedules', label: 'Schedules' },
  { page: 'logs', label: 'Logs' },
  { page: 'people', label: 'People' },
  { page: 'config', label: 'Config' },
  { page: 'health', label: 'Health' },
  { page: 'setup', label: 'Setup' },
];

type Session =
  | { state: 'loading' }
  | { state: 'signed-out' }
  | { state: 'failed'; problem: string }
  | { state: 'in'; me: Me };

export function App() {
  const [session, setSession] = useState<Session>({ state: 'loading' });
  const load = useCallback(async () => {
    try {
      setSession({ state: 'in', me: await api<Me>('/api/me') });
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) setSession({ state: 'signed-out' });
      else setSession({ state: 'failed', problem: problemText(error) });
    }
  }, []);
  useEffect(() => {
    void load();
    const signedOut = () => setSession({ state: 'signed-out' });
    window.addEventListener(SIGNED_OUT_EVENT, signedOut);
    return () => window.removeEventListener(SIGNED_OUT_EVENT, signedOut);
  }, [load]);
  if (session.state === 'loading')
    return (
      <p class="loading" role="status">
        Loading…
      </p>
    );
  if (session.state === 'signed-out') return <SignInPage onSignedIn={load} />;
  if (session.state === 'failed') return <p role="alert">{session.problem}</p>;
  return (
    <MeContext.Provider value={session.me}>
      <Shell me={session.me} onSignedOut={() => setSession({ state: 'signed-out' })} />
    </MeContext.Provider>
  );
}

function Shell({ me, onSignedOut }: { me: Me; onSignedOut(): void }) {
  // No model answers yet: an owner opening the UI (no page named) starts on Setup.
  if (me.setupNeeded && me.pages.includes('setup') && location.hash.replace(/^#\/?/, '') === '')
    location.replace('#/setup');
  const route = useRoute();
  const items = NAV.filter((item) => me.pages.includes(item.page));
  const current = route.page === 'session' ? 'sessions' : route.page;
  const signOut = async () => {
    await api('/api/signout', {}).catch(() => undefined);
    // The next user in this tab must not see this one's chat draft or thread.
    forgetChatStorage();
    onSignedOut();
  };
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <h1>Switchboard</h1>
        <nav aria-label="Pages">
          {items.map((item) => (
            <a
              key={item.page}
              href={hrefOf({ page: item.page })}
              aria-current={item.page === current ? 'page' : undefined}
            >
              {item.label}
            </a>
          ))}
        </nav>
        <span class="who" title={me.senderId}>
          {me.user}
          {me.owner ? ' (owner)' : ''}
        </span>
        <button type="button" class="plain" onClick={signOut}>
          Sign out
        </button>
      </header>
      {/* The chat fills the window and scrolls its log; every other page scrolls the document. */}
      <main id="main" tabIndex={-1} class={route.page === 'chat' ? 'fill' : undefined}>
        <Page route={route} me={me} />
      </main>
    </>
  );
}

function Page({ route, me }: { route: Route; me: Me }) {
  if (!me.pages.includes(route.page)) {
    // A sender no person lists has the default role (member): named like anyone's.
    const who = me.person === undefined ? me.senderId : `${me.person} (${me.senderId})`;
    return (
      <p role="alert">
        The {route.page} page is not for role {me.role}; {who} has that role.
      </p>
    );
  }
  switch (route.page) {
    case 'chat':
      return <ChatPage />;
    case 'sessions':
      return <SessionsPage />;
    case 'session':
      return <SessionPage sessionKey={route.key ?? ''} />;
    case 'approvals':
      return <ApprovalsPage />;
    case 'tools':
      return <ToolsPage />;
    case 'schedules':
      return <SchedulesPage />;
    case 'logs':
      return <LogsPage />;
    case 'config':
      return <ConfigPage />;
    case 'health':
      return <HealthPage />;
    case 'people':
      return <PeoplePage />;
    case 'setup':
      return <SetupPage />;
  }
}
