import type { FastifyInstance } from 'fastify';
import type { SessionSummary } from '../../sessions/index.js';

/** What the HTTP layer may read of sessions; the gateway provides it. */
export interface SessionsView {
  list(): Promise<SessionSummary[]>;
  transcript(key: string): Promise<{ key: string; sessionId: string; entries: unknown[] } | undefined>;
  /** The session's sub-agents as the `subagents` tool lists them; undefined for an unknown session. */
  subagents(key: string, recentMinutes: number | undefined): Promise<unknown | undefined>;
}

const KEY_PARAMS = {
  type: 'object',
  properties: { key: { type: 'string', minLength: 1 } },
  required: ['key'],
} as const;

export function registerSessionRoutes(app: FastifyInstance, sessions: SessionsView): void {
  app.get('/api/sessions', async () => ({ sessions: await sessions.list() }));
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
  app.get<{ Params: { key: string } }>(
    '/api/sessions/:key/transcript',
    { schema: { params: KEY_PARAMS } },
    async (request, reply) => {
      const transcript = await sessions.transcript(request.params.key);
      if (!transcript) {
        return reply
          .code(404)
          .send({ error: 'not_found', message: `unknown session: ${request.params.key}` });
      }
      return transcript;
    },
  );
}
