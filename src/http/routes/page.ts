import type { FastifyInstance } from 'fastify';
import { tokenCookieName } from '../auth.js';

/**
 * A page of the web UI at `path`. Opened with `?token=`, it moves the token into the HttpOnly
 * cookie and redirects to itself, so the token leaves the address bar and history; otherwise it
 * serves the page (inline script and style only, nothing from elsewhere).
 */
export function registerPageRoute(app: FastifyInstance, path: string, page: string, csp: string): void {
  app.get<{ Querystring: { token?: string } }>(
    path,
    { config: { tokenInQuery: true } },
    async (request, reply) => {
      if (typeof request.query.token === 'string') {
        reply.header(
          'set-cookie',
          `${tokenCookieName(request)}=${encodeURIComponent(request.query.token)}; HttpOnly; SameSite=Strict; Path=/`,
        );
        return reply.redirect(path, 303);
      }
      return reply
        .header('content-type', 'text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('content-security-policy', csp)
        .send(page);
    },
  );
}
