import { isIP } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Methods that only read; every other method may change state. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];
const WILDCARD_ADDRESSES = new Set(['0.0.0.0', '::', '[::]']);

/**
 * What a browser page on another origin could make the server do, refused before the token is
 * even looked at (the `SameSite=Strict` cookie is sent to 127.0.0.1 from a page on any port):
 *
 * - `Host` must name the bound address with this server's port (a page whose own name was
 *   rebound to 127.0.0.1 sends its name). Loopback binds also answer to `localhost` and
 *   `[::1]`; a wildcard bind (`0.0.0.0`, `::`) has no single name and accepts any Host.
 * - A state-changing request (any method but GET, HEAD, OPTIONS) must carry
 *   `Content-Type: application/json` (a page can send text/plain, forms and bodyless POSTs
 *   without asking, never JSON) and either no `Origin` (API clients) or one whose host is the
 *   request's Host.
 *
 * Routes that the platform signs (`config.platformSigned`, Slack's `/slack/events`: its own
 * content types, no Origin, the public host name of a proxy) are left to their signature check.
 */
export function createRequestGuard(boundHost: string) {
  const names = allowedNames(boundHost);
  return async function guardRequest(request: FastifyRequest, reply: FastifyReply) {
    if (request.routeOptions.config.platformSigned === true) return;
    const host = request.headers.host?.toLowerCase() ?? '';
    if (names !== undefined && !hostAllowed(host, names, request.socket.localPort)) {
      const expected = names.map((name) => `${name}:${request.socket.localPort}`).join(', ');
      return reply.code(421).send({
        error: 'wrong_host',
        message: `Host ${host || '(none)'} is not this server's address (expected ${expected}); http.host decides the address`,
      });
    }
    if (SAFE_METHODS.has(request.method)) return;
    const origin = request.headers.origin;
    if (origin !== undefined && !originMatches(origin, host)) {
      return reply.code(403).send({
        error: 'forbidden_origin',
        message: `Origin ${origin} may not change anything here: only pages served by this server (${host}) or clients that send no Origin`,
      });
    }
    if (!isJson(request.headers['content-type'])) {
      const given = request.headers['content-type'] ?? 'none';
      return reply.code(415).send({
        error: 'unsupported_media_type',
        message: `${request.method} ${request.url.split('?')[0]} needs Content-Type: application/json and a JSON body (got ${given})`,
      });
    }
  };
}

/** The Host names (without port) this bind answers to; undefined for a wildcard bind (any). */
function allowedNames(boundHost: string): string[] | undefined {
  const bound = boundHost.toLowerCase();
  if (WILDCARD_ADDRESSES.has(bound)) return undefined;
  const bracketed = isIP(bound) === 6 ? `[${bound}]` : bound;
  if (LOOPBACK_NAMES.includes(bracketed) || bound.startsWith('127.')) {
    return [...new Set([bracketed, ...LOOPBACK_NAMES])];
  }
  return [bracketed];
}

function hostAllowed(host: string, names: readonly string[], port: number | undefined): boolean {
  // Without a port, Host means the scheme's default: http's 80.
  const withPort = /:\d+$/.test(host) ? host : `${host}:80`;
  return names.some((name) => withPort === `${name}:${port}`);
}

function originMatches(origin: string, host: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.host === host;
  } catch {
    // `null` (sandboxed frames, file: pages) and anything unparsable.
    return false;
  }
}

function isJson(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]?.trim().toLowerCase() === 'application/json';
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The platform signs these requests: no Host, Origin or Content-Type rule (Slack's events). */
    platformSigned?: boolean;
  }
}
