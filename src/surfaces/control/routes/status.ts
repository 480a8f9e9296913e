import type { FastifyInstance } from 'fastify';
import { type AccessPolicy, NO_QUERY, requireOwner } from '../../http/index.js';
import type { StatusView } from '../contracts.js';

/** What the HTTP layer needs to answer `/api/status`; the gateway builds it from the live parts. */
export interface StatusPort {
  status(): Promise<StatusView>;
}

/** `GET /api/status`, owner-only: channels with their reasons, store, models, uptime, restarts. */
export function registerStatusRoute(
  app: FastifyInstance,
  options: { status: StatusPort; access: AccessPolicy },
): void {
  app.get('/api/status', { schema: { querystring: NO_QUERY } }, async (request, reply) => {
    if (!requireOwner(request, reply, options.access)) return reply;
    return options.status.status();
  });
}
