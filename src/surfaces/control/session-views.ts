import { type Config, primaryModel } from '../../base/config/index.js';
import type { Router } from '../../engine/routing/index.js';
import type { SessionsService, SubagentsPort } from '../../engine/tools/index.js';
import {
  type QueueStatus,
  type SessionIdentity,
  type SessionRecord,
  type SessionStore,
  summarizeSession,
  type TranscriptEntry,
} from '../../records/sessions/index.js';
import type { SessionEventsPort } from './routes/events.js';
import type { SessionFilter, SessionsView } from './routes/sessions.js';
import type { SessionTitles } from './session-titles.js';

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
      const model = primaryModel(options.config.agents[record.agentId]?.model);
      return {
        ...summary(record),
        queued: options.depth(sessionKey),
        ...options.activity(sessionKey),
        ...(model === undefined ? {} : { model }),
      };
    },
  };
}

export function createSessionsView(options: {
  sessions: SessionStore;
  router: Router;
  subagents: SubagentsPort;
  /** Names sessions and their senders; without it the list and transcripts carry no names. */
  titles?: SessionTitles;
}): SessionsView {
  const { sessions, router, subagents, titles } = options;
  /** A record as the list has it: its summary, status and title. */
  const summaryOf = async (record: SessionRecord) => {
    const summary = summarizeSession(record, router.sessionStatus(record.key));
    const title = await titles?.title(record);
    return title === undefined ? summary : { ...summary, title };
  };
  return {
    async subagents(key, recentMinutes) {
      if (!(await sessions.get(key))) return undefined;
      return subagents.act(
        { sessionKey: key, agentId: '' },
        { action: 'list', ...(recentMinutes === undefined ? {} : { recentMinutes }) },
      );
    },
    async list({ filter, ...page }) {
      const where = filter && matching(filter, router);
      const { sessions: records, next } = await sessions.list({ ...page, ...(where ? { where } : {}) });
      const summaries = await Promise.all(records.map(summaryOf));
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
      const [summary, names] = await Promise.all([summaryOf(record), titles?.senderNames(entries)]);
      return {
        key,
        sessionId: record.sessionId,
        summary,
        entries,
        ...(paged ? { next: first } : {}),
        ...(names && Object.keys(names).length > 0 ? { names } : {}),
      };
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

/**
 * An entry with the log's secret scrubber applied to its text (a tool entry's is its result) and
 * its tool calls' arguments. Routing scrubs what it records, but not every entry is its (an
 * owner's post, a restart note) and a value may have become a secret after it was written: the
 * transcript API and the event stream scrub each entry again on the way out.
 */
export function scrubEntry(entry: TranscriptEntry, scrub: (text: string) => string): TranscriptEntry {
  return {
    ...entry,
    text: scrub(entry.text),
    ...(entry.toolCalls
      ? { toolCalls: entry.toolCalls.map((call) => ({ ...call, arguments: scrub(call.arguments) })) }
      : {}),
  };
}

/** The sessions view with each transcript entry scrubbed (`scrubEntry`). */
export function scrubbedSessionsView(view: SessionsView, scrub: (text: string) => string): SessionsView {
  return {
    ...view,
    async transcript(key, read) {
      const page = await view.transcript(key, read);
      // The entries are the store's (`createSessionsView`); the view declares them unknown.
      return (
        page && { ...page, entries: page.entries.map((entry) => scrubEntry(entry as TranscriptEntry, scrub)) }
      );
    },
  };
}

/** The session events with each `entry` event's entry scrubbed (`scrubEntry`). */
export function scrubbedSessionEvents(
  events: SessionEventsPort,
  scrub: (text: string) => string,
): SessionEventsPort {
  return {
    subscribe: (listener) =>
      events.subscribe((event) =>
        listener(event.type === 'entry' ? { ...event, entry: scrubEntry(event.entry, scrub) } : event),
      ),
  };
}
