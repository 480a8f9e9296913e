// Who is signed in, as the gateway sees it (`GET /api/me`, its contract `Me`): the web chat user is fixed by the
// sign-in (never typed into the page), and owner-only pages are shown to owners only.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Me } from '../../src/surfaces/control/contracts.js';

export type { Me } from '../../src/surfaces/control/contracts.js';

export const MeContext = createContext<Me | undefined>(undefined);

export function useMe(): Me {
  const me = useContext(MeContext);
  if (!me) throw new Error('useMe outside the signed-in app');
  return me;
}
