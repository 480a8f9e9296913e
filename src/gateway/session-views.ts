import type { Config } from '../config/index.js';
import type { SessionsView } from '../http/index.js';
import type { Router } from '../routing/index.js';
import type { SessionRecord, SessionStore } from '../sessions/index.js';
import { runSubagentsAction, type SessionsService, type SubagentsService } from '../tools/index.js';

/** What tools see of the sessions (`sessions_list`, `session_status`). */
export function createSessionsService(options: {
  sessions: SessionStore;
  status(sessionKey: string): 'idle' | 'queued' | 'running';
  depth(sessionKey: string): number;
  activity(sessionKey: string): { runId?: string; burst: number };
  config: Config;
}): SessionsService {
  const summary = (record: SessionRecord) => ({
    key: record.key,
    agentId: record.agentId,
    channel: record.route.channel,
    chatType: record.route.chatType,
    status: options.status(record.key),
    transcriptLength: record.transcriptLength,
    createdAt: record.createdAt,
    lastActivityAt: record.lastActivityAt,
  });
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
        sessionId: record.sessionId,
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
      return records.map((record) => ({
        key: record.key,
        agentId: record.agentId,
        sessionId: record.sessionId,
        channel: record.route.channel,
        createdAt: record.createdAt,
        lastActivityAt: record.lastActivityAt,
        transcriptLength: record.transcriptLength,
        status: router.sessionStatus(record.key),
      }));
    },
    async transcript(key) {
      const record = await sessions.get(key);
      if (!record) return undefined;
      return { key, sessionId: record.sessionId, entries: await sessions.transcript(key) };
    },
  };
}
