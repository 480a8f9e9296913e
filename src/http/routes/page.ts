import type { FastifyInstance } from 'fastify';
import { signInCookie } from '../auth.js';

/**
 * A page of the web UI at `path`, served signed in or not: it holds no data (the API it calls
 * does), and signed out it shows the sign-in form. Opened with a valid `?token=` (the gateway
 * log's link), it moves the token into the sign-in cookie (auth.ts: 30 days) and redirects to
 * itself, so the token leaves the address bar and history; a wrong one is answered 401 with the
 * page (its form says why) and sets nothing.
 */
export function registerPageRoute(app: FastifyInstance, path: string, page: string, csp: string): void {
  app.get<{ Querystring: { token?: string } }>(
    path,
    { config: { signInPage: true } },
    async (request, reply) => {
      const { token } = request.query;
      if (typeof token === 'string' && request.identity) {
        reply.header('set-cookie', signInCookie(request, token));
        return reply.redirect(path, 303);
      }
      return reply
        .code(typeof token === 'string' ? 401 : 200)
        .header('content-type', 'text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('content-security-policy', csp)
        .send(page);
    },
  );
}
