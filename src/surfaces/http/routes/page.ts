import type { FastifyInstance, FastifyRequest } from 'fastify';
import { signInCookie } from '../auth.js';
import { senderIdOf } from '../identity.js';

/**
 * A page of the web UI at `path`, served signed in or not: it holds no data (the API it calls
 * does), and signed out it shows the sign-in form. Opened with a valid `?token=` (the gateway
 * log's link) by a top-level navigation, it moves the token into the sign-in cookie (auth.ts: 30
 * days) and redirects to itself, so the token leaves the address bar and history; a wrong one is
 * answered 401 with the page (its form says why) and sets nothing. The link signs in nothing
 * when the request is not a navigation (an `<img src="/?token=…">` in a chat message would
 * otherwise sign the reader in as someone else; browsers send `Sec-Fetch-Dest`), and answers 409
 * with a notice, setting nothing, when the browser is signed in as someone else already.
 */
export function registerPageRoute(app: FastifyInstance, path: string, page: string, csp: string): void {
  app.get<{ Querystring: { token?: string } }>(
    path,
    { config: { signInPage: true } },
    async (request, reply) => {
      const { token } = request.query;
      const { identity, signedInAs } = request;
      if (typeof token === 'string' && identity && isNavigation(request)) {
        if (signedInAs && signedInAs.user !== identity.user) {
          return reply
            .code(409)
            .header('content-type', 'text/html; charset=utf-8')
            .header('cache-control', 'no-store')
            .send(signedInNotice(senderIdOf(signedInAs), path));
        }
        reply.header('set-cookie', signInCookie(request, token));
        return reply.redirect(path, 303);
      }
      return reply
        .code(typeof token === 'string' && !identity ? 401 : 200)
        .header('content-type', 'text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('content-security-policy', csp)
        .send(page);
    },
  );
}

/** A top-level navigation: `Sec-Fetch-Dest: document`, or no such header (an older client). */
function isNavigation(request: FastifyRequest): boolean {
  const destination = request.headers['sec-fetch-dest'];
  return destination === undefined || destination === 'document';
}

const signedInNotice = (senderId: string, path: string) => `<!doctype html><meta charset="utf-8">
<title>Switchboard: signed in already</title>
<body style="font:16px system-ui;margin:3rem">
<h1>Signed in already</h1>
<p>This browser is signed in as <code>${senderId}</code>, and the link you opened is for someone else.
To use it, sign out first, then open the link again. <a href="${path}">Go on as ${senderId}</a>.</p>
</body>`;
