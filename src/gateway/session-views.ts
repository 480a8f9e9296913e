import type { Config } from '../config/index.js';
import type { SessionFilter, SessionsView } from '../http/index.js';
import type { Router } from '../routing/index.js';
import {
  type QueueStatus,
  type SessionIdentity,
  type SessionRecord,
  type SessionStore,
  summarizeSession,
} from '../sessions/index.js';
import { runSubagentsAction, type SessionsService, type SubagentsService } from '../tools/index.js';

/** What tools see of the sessions (`sessions_list`, `session_status`). */
export function createSessionsService(options: {
  sessions: SessionStore;
  status(sessionKey: string): QueueStatus;
  depth(sessionKey: string): number;
  activity(sessionKey: string): { runId?: string; burst: number };
  config: Config;
}): SessionsService {
  const summary = (record: SessionRecord) => summarizeSession(record, options.status(record.key));
  return {
    async list({ agentId, limit }) {
      const page = await options.sessions.list({ limit, where: (session) => session.agentId === agentId });
      return page.sessions.map(summary);
    },
    async details(sessionKey) {
      const record = await options.sessions.get(sessionKey);
      if (!record) return undefined;
      const model = options.config.agents[record.agentId]?.model;
      return {
        ...summary(record),
        queued: options.depth(sessionKey),
        ...options.activity(sessionKey),
        ...(model === undefined ? {} : { model }),
      };
    },
  };
}

export function createSessionsView(
  sessions: SessionStore,
  router: Router,
  subagents: SubagentsService,
): SessionsView {
  return {
    async subagents(key, recentMinutes) {
      if (!(await sessions.get(key))) return undefined;
      const list = await runSubagentsAction(
        subagents,
        { sessionKey: key, agentId: '' },
        { action: 'list', ...(recentMinutes === undefined ? {} : { recentMinutes }) },
        Date.now(),
      );
      return list;
    },
    async list({ filter, ...page }) {
      const where = filter && matching(filter, router);
      const { sessions: records, next } = await sessions.list({ ...page, ...(where ? { where } : {}) });
      const summaries = records.map((record) => summarizeSession(record, router.sessionStatus(record.key)));
      return { sessions: summaries, ...(next === undefined ? {} : { next }) };
    },
    async transcript(key, read) {
      const record = await sessions.get(key);
      if (!record) return undefined;
      const entries = await sessions.transcript(key, read);
      // Paging back: the next page is the entries below the first one read, while there are any.
      const first = entries[0]?.seq ?? 0;
      const paged = read.last !== undefined && first > 0;
      // The summary as the list has it: the transcript page opens with its status and counts.
      const summary = summarizeSession(record, router.sessionStatus(key));
      return { key, sessionId: record.sessionId, summary, entries, ...(paged ? { next: first } : {}) };
    },
  };
}

/** The list's filter as a `where`: the status is the router's now (a page is read at once). */
function matching(filter: SessionFilter, router: Pick<Router, 'sessionStatus'>) {
  const text = filter.q?.toLowerCase();
  return (session: SessionIdentity) =>
    (filter.agent === undefined || session.agentId === filter.agent) &&
    (filter.channel === undefined || session.route.channel === filter.channel) &&
    (filter.status === undefined || router.sessionStatus(session.key) === filter.status) &&
    (text === undefined ||
      session.key.toLowerCase().includes(text) ||
      session.agentId.toLowerCase().includes(text));
}
