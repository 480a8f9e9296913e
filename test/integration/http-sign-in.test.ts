import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_TOKEN, type TestGateway } from '../helpers/gateway.js';

// The sign-in through a listening gateway: the cookie's attributes, sign-in and sign-out, the
// `?token=` link, and a named user's token fixing the web chat user (the gateway token does not).
const ALICE_TOKEN = 'alice-token-0123456789abcdef';
const BOB_TOKEN = 'bob-token-0123456789abcdefgh';
const THIRTY_DAYS = 30 * 24 * 3600;

describe('signing in to the HTTP API', () => {
  let gateway: TestGateway;
  let cookieName: string;
  beforeAll(async () => {
    gateway = await startTestGateway({
      config: {
        http: {
          port: 0,
          token: TEST_TOKEN,
          users: { alice: { token: ALICE_TOKEN }, bob: { token: BOB_TOKEN } },
        },
        owners: ['webchat:local', 'webchat:bob'],
      },
    });
    cookieName = `switchboard_token_${new URL(gateway.url).port}`;
  });
  afterAll(async () => {
    await gateway?.dispose();
  });

  const post = (route: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${gateway.url}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', connection: 'close', ...headers },
      body: JSON.stringify(body),
    });
  const me = async (headers: Record<string, string>) => {
    const answer = await fetch(`${gateway.url}/api/me`, { headers: { connection: 'close', ...headers } });
    return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
  };
  const cookieOf = (answer: Response) => (answer.headers.get('set-cookie') ?? '').split(';')[0] ?? '';

  it('sets a 30-day HttpOnly SameSite=Strict cookie for a user token, good for the API', async () => {
    const answer = await post('/api/signin', { token: ALICE_TOKEN });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ user: 'alice', senderId: 'webchat:alice', operator: false });
    // Plain HTTP here: no Secure (a browser would drop a Secure cookie from http://127.0.0.1).
    expect(answer.headers.get('set-cookie')).toBe(
      `${cookieName}=${ALICE_TOKEN}; Max-Age=${THIRTY_DAYS}; Path=/; HttpOnly; SameSite=Strict`,
    );
    expect(await me({ cookie: cookieOf(answer) })).toMatchObject({
      status: 200,
      body: { user: 'alice', senderId: 'webchat:alice', operator: false, owner: false },
    });
  });

  it('signs the gateway token in as local, the operator', async () => {
    const answer = await post('/api/signin', { token: TEST_TOKEN });
    expect(answer.status).toBe(200);
    expect(await me({ cookie: cookieOf(answer) })).toMatchObject({
      body: { user: 'local', operator: true, owner: true },
    });
    expect(await me({ authorization: `Bearer ${BOB_TOKEN}` })).toMatchObject({ body: { user: 'bob' } });
  });

  it('refuses a wrong token with 401 naming no token, and sets no cookie', async () => {
    const answer = await post('/api/signin', { token: `${ALICE_TOKEN}x` });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('set-cookie')).toBeNull();
    const text = await answer.text();
    expect(text).toContain('not the gateway token');
    for (const token of [ALICE_TOKEN, BOB_TOKEN, TEST_TOKEN]) expect(text).not.toContain(token);
  });

  it('answers bad sign-in bodies with 400 naming the field', async () => {
    const missing = await post('/api/signin', {});
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { message: string }).message).toContain('token');
    const extra = await post('/api/signin', { token: ALICE_TOKEN, user: 'bob' });
    expect(extra.status).toBe(400);
    expect(((await extra.json()) as { field: string }).field).toBe('user');
    const foreign = await post('/api/signin', { token: ALICE_TOKEN }, { origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('set-cookie')).toBeNull();
  });

  it('signs out by clearing the cookie', async () => {
    const answer = await post('/api/signout', {});
    expect(answer.status).toBe(200);
    expect(answer.headers.get('set-cookie')).toBe(
      `${cookieName}=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict`,
    );
  });

  it('keeps the ?token= link: it sets the same 30-day cookie, for a user token too', async () => {
    const link = await fetch(`${gateway.url}/?token=${BOB_TOKEN}`, { redirect: 'manual' });
    expect(link.status).toBe(303);
    expect(link.headers.get('location')).toBe('/');
    expect(link.headers.get('set-cookie')).toBe(
      `${cookieName}=${BOB_TOKEN}; Max-Age=${THIRTY_DAYS}; Path=/; HttpOnly; SameSite=Strict`,
    );
    expect(await me({ cookie: cookieOf(link) })).toMatchObject({ body: { user: 'bob' } });
    // A wrong one: the page (its form says why), 401, nothing set, even for a signed-in browser.
    const wrong = await fetch(`${gateway.url}/?token=wrong`, {
      redirect: 'manual',
      headers: { cookie: cookieOf(link) },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    expect(await wrong.text()).toContain('<div id="app">');
  });

  it('signs in from ?token= only on a top-level navigation, never from an image or a script', async () => {
    for (const dest of ['image', 'script', 'iframe', 'empty']) {
      const embedded = await fetch(`${gateway.url}/?token=${BOB_TOKEN}`, {
        redirect: 'manual',
        headers: { 'sec-fetch-dest': dest },
      });
      expect(embedded.status, dest).not.toBe(303);
      expect(embedded.headers.get('set-cookie'), dest).toBeNull();
    }
    const navigated = await fetch(`${gateway.url}/?token=${BOB_TOKEN}`, {
      redirect: 'manual',
      headers: { 'sec-fetch-dest': 'document' },
    });
    expect(navigated.status).toBe(303);
    expect(cookieOf(navigated)).toBe(`${cookieName}=${BOB_TOKEN}`);
  });

  it('keeps a browser signed in as someone else: a ?token= link for another identity is 409, nothing set', async () => {
    const alice = `${cookieName}=${ALICE_TOKEN}`;
    const other = await fetch(`${gateway.url}/?token=${BOB_TOKEN}`, {
      redirect: 'manual',
      headers: { cookie: alice, 'sec-fetch-dest': 'document' },
    });
    expect(other.status).toBe(409);
    expect(other.headers.get('set-cookie')).toBeNull();
    const notice = await other.text();
    expect(notice).toContain('webchat:alice');
    expect(notice).not.toContain(BOB_TOKEN);
    // The same identity (a fresh link): signed in again, as before.
    const same = await fetch(`${gateway.url}/?token=${ALICE_TOKEN}`, {
      redirect: 'manual',
      headers: { cookie: alice, 'sec-fetch-dest': 'document' },
    });
    expect(same.status).toBe(303);
    expect(cookieOf(same)).toBe(alice);
  });

  it('trusts no X-Forwarded-Proto by default: no Secure on plain HTTP', async () => {
    const answer = await post('/api/signin', { token: ALICE_TOKEN }, { 'x-forwarded-proto': 'https' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('set-cookie')).not.toContain('Secure');
  });

  it('writes no token to the log, a wrong one included', async () => {
    await post('/api/signin', { token: 'a-wrong-token-typed-by-someone' });
    await fetch(`${gateway.url}/?token=${ALICE_TOKEN}`, { redirect: 'manual' });
    const log = gateway.logLines.join('');
    expect(log.length).toBeGreaterThan(0);
    for (const token of [ALICE_TOKEN, BOB_TOKEN, TEST_TOKEN, 'a-wrong-token-typed-by-someone'])
      expect(log).not.toContain(token);
  });

  it('keeps a user who is not an owner to their own routes: the rest is 403 naming them', async () => {
    const alice = { authorization: `Bearer ${ALICE_TOKEN}`, connection: 'close' };
    for (const route of [
      '/api/sessions',
      '/api/sessions/agent:main:webchat:direct:bob/transcript',
      '/api/sessions/agent:main:webchat:direct:bob/subagents',
      '/api/toolpacks',
      '/api/projects/default/tool-ui',
    ]) {
      const answer = await fetch(`${gateway.url}${route}`, { headers: alice });
      expect(answer.status, route).toBe(403);
      expect(((await answer.json()) as { message: string }).message, route).toContain('webchat:alice');
    }
    // Their own: who they are, their web chat.
    expect((await fetch(`${gateway.url}/api/me`, { headers: alice })).status).toBe(200);
    expect((await fetch(`${gateway.url}/api/webchat/threads`, { headers: alice })).status).toBe(200);
    // A named owner and the gateway token (the operator) go everywhere.
    for (const token of [BOB_TOKEN, TEST_TOKEN]) {
      const answer = await fetch(`${gateway.url}/api/sessions`, {
        headers: { authorization: `Bearer ${token}`, connection: 'close' },
      });
      expect(answer.status).toBe(200);
    }
  });

  it('serves the page signed out (it holds no data) while the API refuses', async () => {
    const page = await fetch(`${gateway.url}/`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('set-cookie')).toBeNull();
    expect((await me({})).status).toBe(401);
  });
});

describe('signing in behind a TLS proxy (http.trustProxy)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({
      config: { http: { port: 0, token: TEST_TOKEN, trustProxy: true } },
    });
  });
  afterAll(async () => {
    await gateway?.dispose();
  });

  it('marks the cookie Secure when the proxy says the request came over HTTPS', async () => {
    for (const [proto, secure] of [
      ['https', true],
      ['http', false],
    ] as const) {
      const answer = await fetch(`${gateway.url}/api/signin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-proto': proto, connection: 'close' },
        body: JSON.stringify({ token: TEST_TOKEN }),
      });
      expect(answer.status, proto).toBe(200);
      expect(answer.headers.get('set-cookie')?.endsWith('; Secure'), proto).toBe(secure);
    }
  });
});

describe('the web chat user of a sign-in', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({
      config: { http: { port: 0, token: TEST_TOKEN, users: { alice: { token: ALICE_TOKEN } } } },
    });
  });
  afterAll(async () => {
    await gateway?.dispose();
  });

  const asAlice = (route: string, body: unknown) =>
    fetch(`${gateway.url}${route}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ALICE_TOKEN}`,
        'content-type': 'application/json',
        connection: 'close',
      },
      body: JSON.stringify(body),
    });

  it('is the named user: messages go to their session without naming them', async () => {
    const answer = await asAlice('/api/webchat/messages', { text: '/whoami' });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({
      sessionKey: 'agent:main:webchat:direct:alice',
      replies: [{ text: 'You are webchat:alice (not an owner).' }],
    });
    const named = await asAlice('/api/webchat/messages', { text: '/whoami', user: 'alice' });
    expect(named.status).toBe(200);
  });

  it('may not be another user: messages, clicks and the event stream answer 403 naming both', async () => {
    for (const [route, body] of [
      ['/api/webchat/messages', { text: 'hi', user: 'local' }],
      ['/api/webchat/action', { action: 'x', user: 'bob' }],
    ] as const) {
      const answer = await asAlice(route, body);
      expect(answer.status, route).toBe(403);
      const { message } = (await answer.json()) as { message: string };
      expect(message, route).toContain('webchat:alice');
      expect(message, route).toContain(`webchat:${body.user}`);
    }
    const events = await fetch(`${gateway.url}/api/webchat/events?user=local`, {
      headers: { authorization: `Bearer ${ALICE_TOKEN}`, connection: 'close' },
    });
    expect(events.status).toBe(403);
    expect(((await events.json()) as { message: string }).message).toContain('webchat:local');
    // Nothing was sent as local: its session was never made (free text would have made it).
    const sessions = await gateway.request('GET', '/api/sessions');
    expect(sessions.status).toBe(200);
    expect(sessions.body.sessions.map((session: { key: string }) => session.key)).not.toContain(
      'agent:main:webchat:direct:local',
    );
  });

  it('streams the named user’s own replies', async () => {
    const events = await fetch(`${gateway.url}/api/webchat/events`, {
      headers: { authorization: `Bearer ${ALICE_TOKEN}`, connection: 'close' },
    });
    expect(events.status).toBe(200);
    const reader = events.body?.getReader();
    const first = new TextDecoder().decode((await reader?.read())?.value);
    expect(first).toContain('event: ready\ndata: {"user":"alice"}');
    await reader?.cancel();
  });

  it('is any user the gateway token names (the operator, API clients)', async () => {
    const bob = await gateway.send('/whoami', 'bob');
    expect(bob.status).toBe(200);
    expect(bob.body.replies[0].text).toBe('You are webchat:bob (not an owner).');
  });
});
