import type { FastifyInstance } from 'fastify';

export interface SessionSummary {
  key: string;
  agentId: string;
  sessionId: string;
  channel: string;
  createdAt: string;
  lastActivityAt: string;
  transcriptLength: number;
  status: 'idle' | 'queued' | 'running';
}

/** What the HTTP layer may read of sessions; the gateway provides it. */
export interface SessionsView {
  list(): Promise<SessionSummary[]>;
  transcript(key: string): Promise<{ key: string; sessionId: string; entries: unknown[] } | undefined>;
}

export function registerSessionRoutes(app: FastifyInstance, sessions: SessionsView): void {
  app.get('/api/sessions', async () => ({ sessions: await sessions.list() }));
  app.get<{ Params: { key: string } }>(
    '/api/sessions/:key/transcript',
    {
      schema: {
        params: { type: 'object', properties: { key: { type: 'string', minLength: 1 } }, required: ['key'] },
      },
    },
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
