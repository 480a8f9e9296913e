// Linked sessions in the chat page: the signed-in person's Slack and Discord direct chats
// (`GET /api/webchat/linked`), listed in the thread picker beside their web threads. One on screen
// is named `linked:<session key>` where a thread name would be (a thread name has no colon), so
// the page keeps it across a reload like a thread; its history and sends go to the linked routes.
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { LinkedSessionList, LinkedSessionView } from '../../../src/surfaces/control/contracts.js';
import { api } from '../api.js';

const PREFIX = 'linked:';

/** The picker's name of a linked session. */
export const linkedName = (sessionKey: string): string => `${PREFIX}${sessionKey}`;

/** The session key when `thread` names a linked session; undefined for a web thread or the main chat. */
export function linkedKeyOf(thread: string | undefined): string | undefined {
  return thread?.startsWith(PREFIX) ? thread.slice(PREFIX.length) : undefined;
}

const PLATFORMS: Readonly<Record<LinkedSessionView['platform'], string>> = {
  slack: 'Slack',
  discord: 'Discord',
};

/** How the picker shows one: its platform, then its title (or the identity while it has none). */
export function linkedLabel(view: LinkedSessionView): string {
  return `${PLATFORMS[view.platform]}: ${view.title ?? view.identity}`;
}

/** The signed-in person's linked sessions, read again with `refresh`. */
export function useLinkedSessions(): { linked: LinkedSessionView[]; refresh(): void } {
  const [linked, setLinked] = useState<LinkedSessionView[]>([]);
  const refresh = useCallback(() => {
    api<LinkedSessionList>('/api/webchat/linked')
      .then((answer) => setLinked(answer.sessions))
      .catch(() => undefined);
  }, []);
  useEffect(refresh, []);
  return { linked, refresh };
}
