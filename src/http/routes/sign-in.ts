import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
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

const SignOutBody = Type.Object({}, { additionalProperties: false });

/**
 * `POST /api/signin { token }` sets the sign-in cookie (auth.ts `signInCookie`) and answers who
 * it signs in as; a token that is none of the known ones is 401, and the answer names no token.
 * `POST /api/signout` clears the cookie. Both are public: the sign-in is how a token arrives, and
 * signing out needs none. Like every state-changing route, both must be JSON from no foreign
 * `Origin` (request-guard.ts), so another site cannot sign a browser in or out.
 */
export function registerSignInRoutes(app: FastifyInstance, identify: Identify): void {
  app.post<{ Body: Static<typeof SignInBody> }>(
    '/api/signin',
    { config: { public: true }, schema: { body: SignInBody } },
    async (request, reply) => {
      const identity = identify(request.body.token);
      if (!identity) {
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
