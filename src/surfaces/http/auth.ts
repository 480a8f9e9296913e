import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type FailureLimit, refuseLimited } from './failure-limit.js';
import type { Identity } from './identity.js';

/** Who may sign in: the gateway's token (the operator, `local`) and each named user's token. */
export interface Credentials {
  /** `http.token` or `<stateDir>/http-token`: signs in as `local`, the operator. */
  token: string;
  /** `http.users`: user name → that user's token; signs in as `webchat:<name>`. */
  users?: Readonly<Record<string, string>> | undefined;
}

/** A token → the identity it signs in as, or undefined for anything else. */
export type Identify = (candidate: string | undefined) => Identity | undefined;

/**
 * Compares in constant time per token and tries every one (no early exit on a match), so the
 * answer's timing tells nothing about which token came close. The gateway token wins a tie.
 */
export function createIdentify(credentials: Credentials): Identify {
  const known = [
    { token: Buffer.from(credentials.token), identity: { user: 'local', operator: true } },
    ...Object.entries(credentials.users ?? {}).map(([user, token]) => ({
      token: Buffer.from(token),
      identity: { user, operator: false },
    })),
  ];
  return (candidate) => {
    if (candidate === undefined || candidate.length === 0) return undefined;
    const given = Buffer.from(candidate);
    let found: Identity | undefined;
    for (const entry of known) {
      const same = given.length === entry.token.length && timingSafeEqual(given, entry.token);
      if (same && found === undefined) found = entry.identity;
    }
    return found;
  };
}

/**
 * The sign-in cookie, named per port: cookies are scoped by host, not port, so two gateways on
 * 127.0.0.1 would otherwise overwrite each other's sign-in.
 */
export function tokenCookieName(request: FastifyRequest): string {
  return `switchboard_token_${request.socket.localPort ?? 0}`;
}

/** How long a sign-in lasts in the browser: 30 days (`Max-Age`), past closing it. */
export const SIGN_IN_MAX_AGE_SECONDS = 30 * 24 * 3600;

/**
 * The `Set-Cookie` value that signs this browser in with `token` (or, without one, out): HttpOnly
 * (no script reads it), SameSite=Strict (no other site's page sends it), `Path=/`, `Max-Age` 30
 * days so it outlives the browser, and `Secure` when the request came over HTTPS. Set here only:
 * by `POST /api/signin`, `POST /api/signout` and a page opened with `?token=` (routes/page.ts).
 */
export function signInCookie(request: FastifyRequest, token: string | undefined): string {
  const value = token === undefined ? '' : encodeURIComponent(token);
  const maxAge = token === undefined ? 0 : SIGN_IN_MAX_AGE_SECONDS;
  const secure = request.protocol === 'https' ? '; Secure' : '';
  return `${tokenCookieName(request)}=${value}; Max-Age=${maxAge}; Path=/; HttpOnly; SameSite=Strict${secure}`;
}

const SIGN_IN_PAGE = `<!doctype html><meta charset="utf-8"><title>Switchboard: sign in</title>
<body style="font:16px system-ui;margin:3rem">
<h1>Not signed in</h1>
<p><a href="/">Sign in</a> with the gateway's token or your own (<code>http.users</code>), then open this again.</p>
</body>`;

/**
 * Who may call the HTTP server: routes marked public (`/healthz`, `POST /api/signin`) need
 * nothing; everything else needs a token as `Authorization: Bearer <token>` (API clients) or the
 * sign-in cookie. Pages (`signInPage`) are served to anyone, as they hold no data and show the
 * sign-in form; their `?token=` (the gateway log's link), when given, is the only token tried.
 *
 * A token presented and wrong counts against its source in `limit` (failure-limit.ts): a `?token=`
 * as a sign-in, a bearer token or cookie as `api`. A source past the limit is answered 429 with
 * `Retry-After` whenever it presents a token of that class, before the token is looked at.
 */
export function createAuthHook(identify: Identify, limit: FailureLimit) {
  return async function authenticate(request: FastifyRequest, reply: FastifyReply) {
    const routeConfig = request.routeOptions.config;
    if (routeConfig.public === true) return;
    const header = request.headers.authorization;
    const query = request.query as Record<string, unknown> | undefined;
    const queryToken =
      routeConfig.signInPage === true && typeof query?.token === 'string' ? query.token : undefined;
    const bearer = header?.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : undefined;
    const cookieToken = readCookie(request.headers.cookie, tokenCookieName(request));
    const kind = queryToken !== undefined ? 'sign-in' : 'api';
    const presented = queryToken ?? bearer ?? cookieToken;
    if (presented !== undefined && presented !== '') {
      const retryAfter = limit.retryAfter(kind, request.ip);
      if (retryAfter !== undefined) return refuseLimited(reply, retryAfter, 'wrong tokens');
    }
    const cookie = () => identify(cookieToken);
    const identity = queryToken !== undefined ? identify(queryToken) : (identify(bearer) ?? cookie());
    if (!identity && presented !== undefined && presented !== '' && limit.failed(kind, request.ip))
      request.log.warn(
        { source: request.ip, kind },
        `too many wrong tokens from ${request.ip}: refused (429) for a minute`,
      );
    if (identity) request.identity = identity;
    if (queryToken !== undefined) request.signedInAs = cookie();
    if (identity || routeConfig.signInPage === true) return;
    if (request.method === 'GET' && request.headers.accept?.includes('text/html')) {
      await reply.code(401).header('content-type', 'text/html; charset=utf-8').send(SIGN_IN_PAGE);
      return;
    }
    await reply.code(401).send({
      error: 'unauthorized',
      message: header
        ? 'wrong bearer token'
        : "missing token: send the header Authorization: Bearer followed by the token (the gateway's token is http.token in the config, else the file http-token in its state dir, data/ by default)",
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
  interface FastifyRequest {
    /** On a page opened with `?token=`: who the browser's sign-in cookie is for, if valid. */
    signedInAs?: Identity;
  }
  interface FastifyContextConfig {
    /** No token needed (health checks, the sign-in itself). */
    public?: boolean;
    /**
     * A page of the control UI: served signed in or not (it holds no data; the API does), and
     * the token may come once as `?token=`, which the page moves into the sign-in cookie.
     */
    signInPage?: boolean;
  }
}
