import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Identity } from './identity.js';

/**
 * The web chat's cookie, named per port: cookies are scoped by host, not port, so two
 * gateways on 127.0.0.1 would otherwise overwrite each other's token.
 */
export function tokenCookieName(request: FastifyRequest): string {
  return `switchboard_token_${request.socket.localPort ?? 0}`;
}

const SIGN_IN_PAGE = `<!doctype html><meta charset="utf-8"><title>Switchboard: sign in</title>
<body style="font:16px system-ui;margin:3rem">
<h1>Not signed in</h1>
<p>Open the web chat with the link from the gateway log: it ends in <code>/?token=…</code>.</p>
<p>The token is also in <code>&lt;stateDir&gt;/http-token</code>, or <code>http.token</code> in the config.</p>
</body>`;

/**
 * Who may call the HTTP server: routes marked public (`/healthz`) need nothing; everything
 * else needs the token as `Authorization: Bearer <token>` (API clients) or the HttpOnly cookie
 * that the web chat page sets after it was opened once with `?token=`.
 */
export function createAuthHook(token: string) {
  const expected = Buffer.from(token);
  const matches = (candidate: string | undefined) => {
    if (candidate === undefined) return false;
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
  return async function authenticate(request: FastifyRequest, reply: FastifyReply) {
    const routeConfig = request.routeOptions.config;
    if (routeConfig.public === true) return;
    const header = request.headers.authorization;
    const bearer = header?.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : undefined;
    const operator: Identity = { user: 'local', operator: true };
    if (matches(bearer) || matches(readCookie(request.headers.cookie, tokenCookieName(request)))) {
      request.identity = operator;
      return;
    }
    const query = request.query as Record<string, unknown> | undefined;
    if (routeConfig.tokenInQuery === true && typeof query?.token === 'string' && matches(query.token)) {
      request.identity = operator;
      return;
    }
    if (request.method === 'GET' && request.headers.accept?.includes('text/html')) {
      await reply.code(401).header('content-type', 'text/html; charset=utf-8').send(SIGN_IN_PAGE);
      return;
    }
    await reply.code(401).send({
      error: 'unauthorized',
      message: header
        ? 'wrong bearer token'
        : 'missing token: send "Authorization: Bearer <token>" (the token is in <stateDir>/http-token, or http.token in the config)',
    });
  };
}

/** One cookie's value from a Cookie header (cookie@2, the usual parser, declares Node 22). */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of header?.split(';') ?? []) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === name) {
      try {
        return decodeURIComponent(part.slice(separator + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** No token needed (health checks). */
    public?: boolean;
    /** The token may come as `?token=` (the web chat page, once). */
    tokenInQuery?: boolean;
  }
}
