import type { FastifyInstance } from 'fastify';
import { isSessionCursor, type TranscriptReadOptions } from '../../../records/sessions/index.js';
import type { QueueStatus, SessionPage, TranscriptPage } from '../contracts.js';

/** Which sessions a list page holds: every given field must match (`q`: in the key or agent id, any case). */
export interface SessionFilter {
  agent?: string;
  channel?: string;
  status?: QueueStatus;
  q?: string;
}

/** What the HTTP layer may read of sessions; the gateway provides it. */
export interface SessionsView {
  /** A page of sessions, most recently active first; `cursor` is checked (`isSessionCursor`). */
  list(page: { limit: number; cursor?: string; filter?: SessionFilter }): Promise<SessionPage>;
  /** The transcript, or a page of it; `next` is the `before` of the page below, when paged. */
  transcript(key: string, read: TranscriptReadOptions): Promise<TranscriptPage | undefined>;
  /** The session's sub-agents as the `subagents` tool lists them; undefined for an unknown session. */
  subagents(key: string, recentMinutes: number | undefined): Promise<unknown | undefined>;
}

const KEY_PARAMS = {
  type: 'object',
  properties: { key: { type: 'string', minLength: 1 } },
  required: ['key'],
} as const;

/** `GET /api/sessions` pages: this many sessions without `?limit`, at most `MAX_LIST_LIMIT`. */
export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 1000;
/** A transcript page (`?last`, `?before`): this many entries without `?last`, at most `MAX_LIST_LIMIT`. */
export const DEFAULT_TRANSCRIPT_PAGE = 200;

// Query values are strings here (no type coercion): digits, checked against their range below.
const COUNT = { type: 'string', pattern: '^[0-9]{1,16}$' } as const;

function badQuery(field: string, problem: string) {
  return { error: 'bad_request', field, message: `${field}: ${problem}` };
}

/** A count from the query in 1–max, or the default when absent; undefined when out of range. */
function count(text: string | undefined, fallback: number, max: number): number | undefined {
  if (text === undefined) return fallback;
  const value = Number(text);
  return value >= 1 && value <= max ? value : undefined;
}

export function registerSessionRoutes(app: FastifyInstance, sessions: SessionsView): void {
  registerSessionList(app, sessions);
  app.get<{ Params: { key: string }; Querystring: { recentMinutes?: string } }>(
    '/api/sessions/:key/subagents',
    {
      schema: {
        params: KEY_PARAMS,
        querystring: {
          type: 'object',
          // Query values are strings here (no type coercion): digits, clamped to 1–1440 by the list.
          properties: { recentMinutes: { type: 'string', pattern: '^[0-9]{1,5}$' } },
          additionalProperties: false,
        },
      },
    },
    async (request, reply) => {
      const { recentMinutes } = request.query;
      const list = await sessions.subagents(
        request.params.key,
        recentMinutes === undefined ? undefined : Number(recentMinutes),
      );
      if (list === undefined) {
        return reply
          .code(404)
          .send({ error: 'not_found', message: `unknown session: ${request.params.key}` });
      }
      return list;
    },
  );
  registerTranscript(app, sessions);
}

/** The list's filters, as the query names them (a cursor is only valid with the same filters). */
const FILTER_QUERY = {
  agent: { type: 'string', minLength: 1, maxLength: 128 },
  channel: { type: 'string', enum: ['webchat', 'slack', 'discord', 'internal'] },
  status: { type: 'string', enum: ['idle', 'queued', 'running'] },
  q: { type: 'string', minLength: 1, maxLength: 256 },
} as const;

type ListQuery = { limit?: string; cursor?: string } & SessionFilter;

/**
 * `GET /api/sessions?limit&cursor&agent&channel&status&q`: a page of the sessions that match,
 * newest activity first, and the next cursor.
 */
function registerSessionList(app: FastifyInstance, sessions: SessionsView): void {
  app.get<{ Querystring: ListQuery }>(
    '/api/sessions',
    {
      schema: {
        querystring: {
          type: 'object',
          properties: {
            limit: COUNT,
            cursor: { type: 'string', minLength: 1, maxLength: 4096 },
            ...FILTER_QUERY,
          },
          additionalProperties: false,
        },
      },
    },
    async (request, reply) => {
      const { cursor, limit: _limit, ...filter } = request.query;
      const limit = count(request.query.limit, DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT);
      if (limit === undefined) return reply.code(400).send(badQuery('limit', `use 1–${MAX_LIST_LIMIT}`));
      if (cursor !== undefined && !isSessionCursor(cursor))
        return reply.code(400).send(badQuery('cursor', 'is not a cursor this list gave (use its next)'));
      return sessions.list({
        limit,
        ...(cursor === undefined ? {} : { cursor }),
        ...(Object.keys(filter).length === 0 ? {} : { filter }),
      });
    },
  );
}

/**
 * `GET /api/sessions/:key/transcript`: the whole transcript; with `?last` (and `?before`), the
 * last entries below a seq, oldest first, and `next` to page further back.
 */
function registerTranscript(app: FastifyInstance, sessions: SessionsView): void {
  app.get<{ Params: { key: string }; Querystring: { last?: string; before?: string } }>(
    '/api/sessions/:key/transcript',
    {
      schema: {
        params: KEY_PARAMS,
        querystring: {
          type: 'object',
          properties: { last: COUNT, before: COUNT },
          additionalProperties: false,
        },
      },
    },
    async (request, reply) => {
      const paged = request.query.last !== undefined || request.query.before !== undefined;
      const last = count(request.query.last, DEFAULT_TRANSCRIPT_PAGE, MAX_LIST_LIMIT);
      if (last === undefined) return reply.code(400).send(badQuery('last', `use 1–${MAX_LIST_LIMIT}`));
      const before = request.query.before === undefined ? undefined : Number(request.query.before);
      if (before !== undefined && !Number.isSafeInteger(before))
        return reply.code(400).send(badQuery('before', 'is not a seq'));
      const read = paged ? { last, ...(before === undefined ? {} : { before }) } : {};
      const transcript = await sessions.transcript(request.params.key, read);
      if (!transcript) {
        return reply
          .code(404)
          .send({ error: 'not_found', message: `unknown session: ${request.params.key}` });
      }
      return transcript;
    },
  );
}
