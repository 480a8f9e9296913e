import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

export const TOKEN_COOKIE = 'switchboard_token';

/**
 * Who may call the HTTP server: `/healthz` is public; everything else needs the token as
 * `Authorization: Bearer <token>` (API clients) or the HttpOnly cookie that the web chat
 * page sets after it was opened once with `?token=`.
 */
export function createAuthHook(token: string) {
  const expected = Buffer.from(token);
  const matches = (candidate: string | undefined) => {
    if (candidate === undefined) return false;
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
  return async function authenticate(request: FastifyRequest, reply: FastifyReply) {
    if (request.routeOptions.config.public === true) return;
    const header = request.headers.authorization;
    const bearer = header?.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : undefined;
    if (matches(bearer) || matches(readCookie(request.headers.cookie, TOKEN_COOKIE))) return;
    const query = request.query as Record<string, unknown> | undefined;
    if (request.routeOptions.config.tokenInQuery === true && typeof query?.token === 'string' && matches(query.token)) {
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
