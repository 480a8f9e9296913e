import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { type Identify, signInCookie } from '../auth.js';
import { senderIdOf } from '../identity.js';

const SignInBody = Type.Object(
  {
    token: Type.String({
      minLength: 1,
      maxLength: 1024,
      description: 'The gateway token (signs in as `local`) or a user’s `http.users.<name>.token`.',
    }),
  },
  { additionalProperties: false },
);

/** Failed sign-ins one address may make in `SIGN_IN_FAILURE_WINDOW_MS`; past them, 429. */
export const SIGN_IN_FAILURE_LIMIT = 10;
export const SIGN_IN_FAILURE_WINDOW_MS = 60_000;
/** Addresses remembered at once (the least recently failing are forgotten first). */
const MAX_ADDRESSES = 10_000;

const SignOutBody = Type.Object({}, { additionalProperties: false });

/**
 * `POST /api/signin { token }` sets the sign-in cookie (auth.ts `signInCookie`) and answers who
 * it signs in as; a token that is none of the known ones is 401, and the answer names no token.
 * From one address (`request.ip`: the proxy's client with `http.trustProxy`), after
 * `SIGN_IN_FAILURE_LIMIT` failures within a minute every sign-in is 429 with `Retry-After` until
 * the minute is over; a success does not count. `POST /api/signout` clears the cookie. Both are public: the sign-in is how a token arrives, and
 * signing out needs none. Like every state-changing route, both must be JSON from no foreign
 * `Origin` (request-guard.ts), so another site cannot sign a browser in or out.
 */
export function registerSignInRoutes(app: FastifyInstance, identify: Identify): void {
  const limit = createFailureLimit();
  app.post<{ Body: Static<typeof SignInBody> }>(
    '/api/signin',
    { config: { public: true }, schema: { body: SignInBody } },
    async (request, reply) => {
      if (limit.refused(request, reply)) return reply;
      const identity = identify(request.body.token);
      if (!identity) {
        limit.failed(request);
        return reply.code(401).send({
          error: 'unauthorized',
          message:
            'that is not the gateway token (http.token or <stateDir>/http-token) nor a user’s token (http.users.<name>.token)',
          field: 'token',
        });
      }
      reply.header('set-cookie', signInCookie(request, request.body.token));
      return { user: identity.user, senderId: senderIdOf(identity), operator: identity.operator };
    },
  );

  app.post(
    '/api/signout',
    { config: { public: true }, schema: { body: SignOutBody } },
    async (request, reply) => {
      reply.header('set-cookie', signInCookie(request, undefined));
      return { signedOut: true };
    },
  );
}

/** The failed sign-ins per address, in a bounded map whose entries end a window after the first. */
function createFailureLimit() {
  const failures = new LRUCache<string, { count: number }>({
    max: MAX_ADDRESSES,
    ttl: SIGN_IN_FAILURE_WINDOW_MS,
    ttlAutopurge: false,
  });
  return {
    refused(request: FastifyRequest, reply: FastifyReply): boolean {
      const seen = failures.get(request.ip);
      if (seen === undefined || seen.count < SIGN_IN_FAILURE_LIMIT) return false;
      const retryAfter = Math.max(1, Math.ceil(failures.getRemainingTTL(request.ip) / 1000));
      void reply
        .code(429)
        .header('retry-after', String(retryAfter))
        .send({
          error: 'too_many_requests',
          message: `too many failed sign-ins from this address: try again in ${retryAfter} s`,
        });
      return true;
    },
    failed(request: FastifyRequest): void {
      const seen = failures.get(request.ip);
      // Counted in place: the window runs from the first failure, not the last.
      if (seen) seen.count += 1;
      else failures.set(request.ip, { count: 1 });
    },
  };
}
