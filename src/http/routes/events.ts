import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { SessionEventListener } from '../../sessions/index.js';
import { type AccessPolicy, requireOwner } from '../identity.js';

/** What the events stream reads: the session events bus (`createSessionEvents`); the gateway passes it. */
export interface SessionEventsPort {
  subscribe(listener: SessionEventListener): () => void;
}

const HEARTBEAT_MS = 15_000;

/**
 * `GET /api/events`: the owner's live view of every session, as server-sent events: `ready` once,
 * then `session` (`{ summary }`: a session changed or its status moved) and `entry` (`{ key,
 * entry }`: an entry appended, as the transcript API returns it). Owner-only (it shows every
 * session's messages). Open streams end when the server closes (a stop or restart does not wait
 * for them).
 */
export function registerEventsRoute(
  app: FastifyInstance,
  options: { events: SessionEventsPort; access: AccessPolicy },
): void {
  const open = new Set<ServerResponse>();
  app.addHook('preClose', async () => {
    for (const response of open) response.end();
  });
  app.get(
    '/api/events',
    { schema: { querystring: { type: 'object', properties: {}, additionalProperties: false } } },
    (request, reply) => {
      if (!requireOwner(request, reply, options.access)) return reply;
      reply.hijack();
      const response = reply.raw;
      response.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      });
      open.add(response);
      const send = (type: string, data: unknown) => {
        if (!response.writableEnded) response.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
      };
      send('ready', {});
      const heartbeat = setInterval(() => response.write(': ping\n\n'), HEARTBEAT_MS);
      const unsubscribe = options.events.subscribe((event) => {
        if (event.type === 'session') send('session', { summary: event.summary });
        else send('entry', { key: event.key, entry: event.entry });
      });
      response.on('close', () => {
        open.delete(response);
        clearInterval(heartbeat);
        unsubscribe();
      });
      return reply;
    },
  );
}
