import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { createAuthHook, createIdentify } from '../../src/http/auth.js';
import { registerSignInRoutes, SIGN_IN_FAILURE_LIMIT } from '../../src/http/routes/sign-in.js';

// `POST /api/signin` counts failures per address: past the limit in a minute, 429 with
// Retry-After, the right token included; a success does not count. The real route, injected.
const TOKEN = 'gateway-token-0123456789';

async function app() {
  const server = Fastify();
  const identify = createIdentify({ token: TOKEN });
  server.addHook('onRequest', createAuthHook(identify));
  registerSignInRoutes(server, identify);
  await server.ready();
  return server;
}

const signIn = (server: Awaited<ReturnType<typeof app>>, token: string, remoteAddress = '10.0.0.1') =>
  server.inject({ method: 'POST', url: '/api/signin', remoteAddress, payload: { token } });

describe('the sign-in failure limit', () => {
  it('answers 429 with Retry-After after 10 failures from one address; successes do not count', async () => {
    const server = await app();
    try {
      expect(SIGN_IN_FAILURE_LIMIT).toBe(10);
      for (let failure = 0; failure < 5; failure += 1)
        expect((await signIn(server, `wrong-${failure}`)).statusCode).toBe(401);
      expect((await signIn(server, TOKEN)).statusCode).toBe(200);
      for (let failure = 5; failure < 10; failure += 1)
        expect((await signIn(server, `wrong-${failure}`)).statusCode).toBe(401);
      for (const token of ['wrong-again', TOKEN]) {
        const limited = await signIn(server, token);
        expect(limited.statusCode, token).toBe(429);
        expect(limited.headers['set-cookie'], token).toBeUndefined();
        const retryAfter = Number(limited.headers['retry-after']);
        expect(retryAfter, token).toBeGreaterThan(0);
        expect(retryAfter, token).toBeLessThanOrEqual(60);
        expect(limited.json().error, token).toBe('too_many_requests');
      }
      // Another address is not held back by this one's failures.
      expect((await signIn(server, TOKEN, '10.0.0.2')).statusCode).toBe(200);
    } finally {
      await server.close();
    }
  });
});
