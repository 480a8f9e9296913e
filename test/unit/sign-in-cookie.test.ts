import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { createAuthHook, createIdentify } from '../../src/surfaces/http/auth.js';
import { createFailureLimit } from '../../src/surfaces/http/failure-limit.js';
import { registerPageRoute } from '../../src/surfaces/http/routes/page.js';
import { registerSignInRoutes } from '../../src/surfaces/http/routes/sign-in.js';

// `Secure` follows `request.protocol`: a server behind a TLS proxy it trusts (trustProxy) sees
// `https` from X-Forwarded-Proto. The gateway trusts one only with `http.trustProxy`
// (http-sign-in.test.ts checks both ways); the real routes here, through fastify's inject.
const TOKEN = 'gateway-token-0123456789';
const ALICE = 'alice-token-0123456789ab';

async function app() {
  const server = Fastify({ trustProxy: true });
  const identify = createIdentify({ token: TOKEN, users: { alice: ALICE } });
  const limit = createFailureLimit();
  server.addHook('onRequest', createAuthHook(identify, limit));
  registerSignInRoutes(server, identify, limit);
  registerPageRoute(server, '/', '<!doctype html><div id="app"></div>', "default-src 'none'");
  await server.ready();
  return server;
}

describe('the sign-in cookie over HTTPS', () => {
  it('is Secure when the request came over HTTPS, and not over HTTP', async () => {
    const server = await app();
    try {
      for (const [proto, secure] of [
        ['https', true],
        ['http', false],
      ] as const) {
        const signIn = await server.inject({
          method: 'POST',
          url: '/api/signin',
          headers: { 'x-forwarded-proto': proto, 'content-type': 'application/json' },
          payload: { token: ALICE },
        });
        expect(signIn.statusCode, proto).toBe(200);
        const link = await server.inject({
          url: `/?token=${TOKEN}`,
          headers: { 'x-forwarded-proto': proto },
        });
        expect(link.statusCode, proto).toBe(303);
        const signOut = await server.inject({
          method: 'POST',
          url: '/api/signout',
          headers: { 'x-forwarded-proto': proto, 'content-type': 'application/json' },
          payload: {},
        });
        for (const answer of [signIn, link, signOut]) {
          const cookie = String(answer.headers['set-cookie']);
          expect(cookie, proto).toMatch(/; Path=\/; HttpOnly; SameSite=Strict/);
          expect(cookie.endsWith('; Secure'), `${proto}: ${cookie}`).toBe(secure);
        }
      }
    } finally {
      await server.close();
    }
  });

  it('names each token its identity, and nothing else', () => {
    const identify = createIdentify({ token: TOKEN, users: { alice: ALICE } });
    expect(identify(TOKEN)).toEqual({ user: 'local', operator: true });
    expect(identify(ALICE)).toEqual({ user: 'alice', operator: false });
    for (const wrong of [undefined, '', `${ALICE}x`, ALICE.slice(0, -1), TOKEN.toUpperCase()])
      expect(identify(wrong)).toBeUndefined();
  });
});
