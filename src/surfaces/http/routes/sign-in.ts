import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { type Identify, signInCookie } from '../auth.js';
import { type FailureLimit, refuseLimited } from '../failure-limit.js';
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

const SignOutBody = Type.Object({}, { additionalProperties: false });

/**
 * `POST /api/signin { token }` sets the sign-in cookie (auth.ts `signInCookie`) and answers who
 * it signs in as; a token that is none of the known ones is 401, and the answer names no token.
 * From one source (failure-limit.ts: `request.ip`, an IPv6 address by its /64), after
 * `TOKEN_FAILURE_LIMIT` failures within a minute every sign-in from it is 429 with `Retry-After`
 * until the minute is over; a success does not count, and other sources are not held back. `POST /api/signout` clears the cookie. Both are public: the sign-in is how a token arrives, and
 * signing out needs none. Like every state-changing route, both must be JSON from no foreign
 * `Origin` (request-guard.ts), so another site cannot sign a browser in or out.
 */
export function registerSignInRoutes(app: FastifyInstance, identify: Identify, limit: FailureLimit): void {
  app.post<{ Body: Static<typeof SignInBody> }>(
    '/api/signin',
    { config: { public: true }, schema: { body: SignInBody } },
    async (request, reply) => {
      const retryAfter = limit.retryAfter('sign-in', request.ip);
      if (retryAfter !== undefined) return refuseLimited(reply, retryAfter, 'failed sign-ins');
      const identity = identify(request.body.token);
      if (!identity) {
        if (limit.failed('sign-in', request.ip))
          request.log.warn(
            { source: request.ip, kind: 'sign-in' },
            `too many failed sign-ins from ${request.ip}: refused (429) for a minute`,
          );
        return reply.code(401).send({
          error: 'unauthorized',
          message:
            "that is not the gateway token (http.token, else the file http-token in the gateway's state dir, data/ by default) nor a user’s token (http.users.NAME.token)",
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
