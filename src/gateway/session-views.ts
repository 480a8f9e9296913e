import type { Config } from '../config/index.js';
import type { SessionsView } from '../http/index.js';
import type { Router } from '../routing/index.js';
import {
  type QueueStatus,
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
      const records = await options.sessions.list();
      return records
        .filter((record) => record.agentId === agentId)
        .slice(0, limit)
        .map(summary);
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
    async list() {
      const records = await sessions.list();
      return records.map((record) => summarizeSession(record, router.sessionStatus(record.key)));
    },
    async transcript(key) {
      const record = await sessions.get(key);
      if (!record) return undefined;
      return { key, sessionId: record.sessionId, entries: await sessions.transcript(key) };
    },
  };
}
