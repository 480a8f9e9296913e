import type { FastifyInstance } from 'fastify';
import type { SessionEventListener } from '../../../records/sessions/index.js';
import {
  type AccessPolicy,
  type EventStream,
  NO_QUERY,
  requireOwner,
  startEventStream,
} from '../../http/index.js';

/** What the events stream reads: the session events bus (`createSessionEvents`); the gateway passes it. */
export interface SessionEventsPort {
  subscribe(listener: SessionEventListener): () => void;
}

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
  const open = new Set<EventStream>();
  app.addHook('preClose', async () => {
    for (const stream of open) stream.end();
  });
  app.get('/api/events', { schema: { querystring: NO_QUERY } }, (request, reply) => {
    if (!requireOwner(request, reply, options.access)) return reply;
    startEventStream(reply, {
      ready: {},
      subscribe(stream) {
        open.add(stream);
        const unsubscribe = options.events.subscribe((event) => {
          if (event.type === 'session') stream.send('session', { summary: event.summary });
          else stream.send('entry', { key: event.key, entry: event.entry });
        });
        return () => {
          open.delete(stream);
          unsubscribe();
        };
      },
    });
    return reply;
  });
}
