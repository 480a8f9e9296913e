// The control UI's pages, addressed by the hash (`#/sessions/<key>`), so one served page holds
// them all and a reload or a shared link opens the same view. `/tools` opens on the Tools page.
import { useEffect, useState } from 'preact/hooks';
import type { PageName } from '../../src/surfaces/control/contracts.js';

export type { PageName };

export interface Route {
  page: PageName;
  /** The session key (`session`), decoded. */
  key?: string;
}

const PAGES: readonly PageName[] = [
  'chat',
  'sessions',
  'approvals',
  'tools',
  'schedules',
  'logs',
  'config',
  'health',
  'people',
  'setup',
];

function parseRoute(hash: string, pathname: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/');
  const [first, ...rest] = parts;
  if (first === 'sessions' && rest.length > 0 && rest[0]) {
    try {
      return { page: 'session', key: decodeURIComponent(rest.join('/')) };
    } catch {
      return { page: 'sessions' };
    }
  }
  const page = PAGES.find((name) => name === first);
  if (page) return { page };
  return { page: pathname.startsWith('/tools') ? 'tools' : 'chat' };
}

export function hrefOf(route: Route): string {
  return route.page === 'session' && route.key !== undefined
    ? `#/sessions/${encodeURIComponent(route.key)}`
    : `#/${route.page}`;
}

export function useRoute(): Route {
  const read = () => parseRoute(location.hash, location.pathname);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onChange = () => setRoute(read());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
