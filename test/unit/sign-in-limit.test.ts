import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { createAuthHook, createIdentify } from '../../src/surfaces/http/auth.js';
import { createFailureLimit, sourceKey, TOKEN_FAILURE_LIMIT } from '../../src/surfaces/http/failure-limit.js';
import { registerPageRoute } from '../../src/surfaces/http/routes/page.js';
import { registerSignInRoutes } from '../../src/surfaces/http/routes/sign-in.js';

// Wrong tokens are limited per source and per class (sign-in, API token), never per token: past
// 10 in a minute that source gets 429 with Retry-After in that class, the right token included,
// while every other source (and the other class) goes on. The real hook and routes, injected.
const TOKEN = 'gateway-token-0123456789';

async function app() {
  const server = Fastify();
  const identify = createIdentify({ token: TOKEN });
  const limit = createFailureLimit();
  server.addHook('onRequest', createAuthHook(identify, limit));
  registerSignInRoutes(server, identify, limit);
  registerPageRoute(server, '/', '<!doctype html><div id="app"></div>', "default-src 'none'");
  server.get('/api/probe', async (request) => ({ user: request.identity?.user }));
  await server.ready();
  return server;
}

type App = Awaited<ReturnType<typeof app>>;

const signIn = (server: App, token: string, remoteAddress = '10.0.0.1') =>
  server.inject({ method: 'POST', url: '/api/signin', remoteAddress, payload: { token } });

const probe = (server: App, token: string | undefined, remoteAddress: string, cookie?: string) =>
  server.inject({
    url: '/api/probe',
    remoteAddress,
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(cookie === undefined ? {} : { cookie }),
    },
  });

function expectLimited(answer: Awaited<ReturnType<App['inject']>>, what: string) {
  expect(answer.statusCode, what).toBe(429);
  const retryAfter = Number(answer.headers['retry-after']);
  expect(retryAfter, what).toBeGreaterThan(0);
  expect(retryAfter, what).toBeLessThanOrEqual(60);
  expect(answer.json().error, what).toBe('too_many_requests');
  expect(answer.headers['set-cookie'], what).toBeUndefined();
}

describe('the sign-in failure limit', () => {
  it('answers 429 with Retry-After after 10 failures from one address; successes do not count', async () => {
    const server = await app();
    try {
      expect(TOKEN_FAILURE_LIMIT).toBe(10);
      for (let failure = 0; failure < 5; failure += 1)
        expect((await signIn(server, `wrong-${failure}`)).statusCode).toBe(401);
      expect((await signIn(server, TOKEN)).statusCode).toBe(200);
      for (let failure = 5; failure < 10; failure += 1)
        expect((await signIn(server, `wrong-${failure}`)).statusCode).toBe(401);
      for (const token of ['wrong-again', TOKEN]) expectLimited(await signIn(server, token), token);
      // Another address is not held back by this one's failures.
      expect((await signIn(server, TOKEN, '10.0.0.2')).statusCode).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('counts a wrong ?token= on a page as a sign-in', async () => {
    const server = await app();
    try {
      const page = (token: string, remoteAddress: string) =>
        server.inject({ url: `/?token=${token}`, remoteAddress, headers: { 'sec-fetch-dest': 'document' } });
      for (let failure = 0; failure < 10; failure += 1)
        expect((await page(`wrong-${failure}`, '10.0.0.7')).statusCode).toBe(401);
      expectLimited(await page(TOKEN, '10.0.0.7'), '?token= from the guessing address');
      expect((await page(TOKEN, '10.0.0.8')).statusCode).toBe(303);
    } finally {
      await server.close();
    }
  });
});

describe('the API token failure limit', () => {
  it('answers 429 to a source past 10 wrong bearer tokens, the right one included; other sources go on', async () => {
    const server = await app();
    try {
      for (let failure = 0; failure < 10; failure += 1)
        expect((await probe(server, `wrong-${failure}`, '10.0.0.1')).statusCode).toBe(401);
      expectLimited(await probe(server, TOKEN, '10.0.0.1'), 'the right token from the guessing address');
      expect((await probe(server, undefined, '10.0.0.1')).statusCode).toBe(401);
      const elsewhere = await probe(server, TOKEN, '10.0.0.2');
      expect(elsewhere.statusCode).toBe(200);
      expect(elsewhere.json()).toEqual({ user: 'local' });
    } finally {
      await server.close();
    }
  });

  it('counts wrong sign-in cookies as wrong tokens too', async () => {
    const server = await app();
    try {
      // The cookie's name is per port: read it from a sign-in's Set-Cookie, and check it signs in.
      const set = String((await signIn(server, TOKEN, '10.0.0.9')).headers['set-cookie']);
      const name = set.slice(0, set.indexOf('='));
      expect((await probe(server, undefined, '10.0.0.9', `${name}=${TOKEN}`)).statusCode).toBe(200);
      for (let failure = 0; failure < 10; failure += 1)
        expect((await probe(server, undefined, '10.0.0.3', `${name}=wrong-${failure}`)).statusCode).toBe(401);
      expectLimited(await probe(server, TOKEN, '10.0.0.3'), 'after wrong cookies');
    } finally {
      await server.close();
    }
  });

  it('keeps the classes apart: guessing at the sign-in does not lock the API, nor the reverse', async () => {
    const server = await app();
    try {
      for (let failure = 0; failure < 10; failure += 1) await signIn(server, `wrong-${failure}`, '10.0.0.4');
      expectLimited(await signIn(server, TOKEN, '10.0.0.4'), 'sign-in');
      expect((await probe(server, TOKEN, '10.0.0.4')).statusCode).toBe(200);
      for (let failure = 0; failure < 10; failure += 1) await probe(server, `wrong-${failure}`, '10.0.0.5');
      expectLimited(await probe(server, TOKEN, '10.0.0.5'), 'api');
      expect((await signIn(server, TOKEN, '10.0.0.5')).statusCode).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('counts an IPv6 source by its /64 and an IPv4-mapped address as the IPv4 one', async () => {
    const server = await app();
    try {
      for (let failure = 0; failure < 10; failure += 1)
        await probe(server, `wrong-${failure}`, '2001:db8::1');
      expectLimited(await probe(server, TOKEN, '2001:db8::ffff:2'), 'the same /64');
      expect((await probe(server, TOKEN, '2001:db8:0:1::1')).statusCode).toBe(200);
      for (let failure = 0; failure < 10; failure += 1)
        await probe(server, `wrong-${failure}`, '::ffff:10.0.0.6');
      expectLimited(await probe(server, TOKEN, '10.0.0.6'), 'mapped');
    } finally {
      await server.close();
    }
  });
});

describe('sourceKey', () => {
  it('keeps IPv4, unmaps IPv4 in IPv6, and cuts IPv6 to its /64', () => {
    expect(sourceKey('127.0.0.1')).toBe('127.0.0.1');
    expect(sourceKey('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(sourceKey('2001:0db8:0000:0000:1:2:3:4')).toBe('2001:db8:0:0::/64');
    expect(sourceKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(sourceKey('::1')).toBe('0:0:0:0::/64');
    expect(sourceKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });
});
