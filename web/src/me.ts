// Who is signed in, as the gateway sees it (`GET /api/me`): the web chat user is fixed by the
// sign-in (never typed into the page), and owner-only pages are shown to owners only.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

export interface Me {
  /** The web chat user: its sender id is `webchat:<user>`. */
  user: string;
  senderId: string;
  /** In `owners`: may see every session, the config, health and the tools. */
  owner: boolean;
  /** The role (docs/roles.md): `owner`, `operator`, `member`, `viewer` or a configured one. */
  role: string;
  /** The person (a key of `people`); absent for a sender no person lists. */
  person?: string;
  /** The pages the role shows (`roles.<name>.pages`). */
  pages: string[];
  /** May decide approvals (in `approvals.approvers`, or an owner). */
  approver: boolean;
  /** The project id (`project.id`), for the Tools API. */
  projectId: string;
  version: string;
  /** The most characters one chat message may hold. */
  maxMessageLength: number;
}

export const MeContext = createContext<Me | undefined>(undefined);

export function useMe(): Me {
  const me = useContext(MeContext);
  if (!me) throw new Error('useMe outside the signed-in app');
  return me;
}
