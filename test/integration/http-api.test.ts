import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

describe('the HTTP API and web chat', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({
      config: {
        agents: { main: { displayName: 'Main' }, ops: {} },
        bindings: [{ agent: 'ops', match: { channel: 'webchat', chatId: 'oncall' } }],
      },
    });
  });
  afterAll(async () => {
    await gateway.dispose();
  });

  it('answers /healthz without a token', async () => {
    const response = await fetch(`${gateway.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: 'ok',
      mode: 'normal',
      channels: { webchat: 'connected' },
      down: [],
    });
  });

  it('refuses the API without the token or with a wrong one', async () => {
    const missing = await fetch(`${gateway.url}/api/sessions`);
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as { message: string }).message).toContain('Authorization: Bearer');
    const wrong = await fetch(`${gateway.url}/api/sessions`, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    // The page itself is served signed out: it holds no data and shows the sign-in form.
    const page = await fetch(`${gateway.url}/`, { redirect: 'manual' });
    expect(page.status).toBe(200);
  });

  it('answers /whoami for the local web chat user as an owner, and others as not', async () => {
    const local = await gateway.send('/whoami');
    expect(local.status).toBe(200);
    expect(local.body).toEqual({
      sessionKey: 'agent:main:webchat:direct:local',
      replies: [{ id: expect.any(String), origin: 'command', text: 'You are webchat:local (owner).' }],
    });
    const bob = await gateway.send('/whoami', 'bob');
    expect(bob.body.replies[0].text).toBe('You are webchat:bob (not an owner).');
  });

  it('gives free text the no-model reply naming the config keys, and keeps the transcript', async () => {
    const sent = await gateway.send('hello there', 'alice');
    expect(sent.body.sessionKey).toBe('agent:main:webchat:direct:alice');
    const reply = sent.body.replies[0].text as string;
    expect(reply).toContain('No model is configured for agent "main"');
    expect(reply).toContain('models.<name>');
    expect(reply).toContain('agents.main.model');
    expect(reply).toContain(gateway.configPath);

    const transcript = await gateway.request(
      'GET',
      '/api/sessions/agent:main:webchat:direct:alice/transcript',
    );
    expect(transcript.status).toBe(200);
    expect(transcript.body.entries).toEqual([
      expect.objectContaining({ seq: 0, role: 'user', text: 'hello there', senderId: 'webchat:alice' }),
      expect.objectContaining({ seq: 1, role: 'assistant', text: reply }),
    ]);
  });

  it('routes threads to their own session and bindings to their agent', async () => {
    const threaded = await gateway.send('in a thread', 'alice', 'incident-42');
    expect(threaded.body.sessionKey).toBe('agent:main:webchat:direct:alice:thread:incident-42');
    const bound = await gateway.send('who answers?', 'oncall');
    expect(bound.body.sessionKey).toBe('agent:ops:webchat:direct:oncall');
    expect(bound.body.replies[0].text).toContain('agents.ops.model');
  });

  it('lists sessions with agent, last activity and status', async () => {
    await gateway.send('listed', 'carol');
    const listed = await gateway.request('GET', '/api/sessions');
    expect(listed.status).toBe(200);
    expect(listed.body.sessions).toContainEqual(
      expect.objectContaining({
        key: 'agent:main:webchat:direct:carol',
        agentId: 'main',
        status: 'idle',
        transcriptLength: 2,
        lastActivityAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      }),
    );
  });

  it('pages the session list newest first with its cursor, and refuses a cursor it did not give', async () => {
    for (const user of ['page1', 'page2', 'page3']) await gateway.send('to be listed', user);
    const first = await gateway.request('GET', '/api/sessions?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.sessions.map((session: { key: string }) => session.key)).toEqual([
      'agent:main:webchat:direct:page3',
      'agent:main:webchat:direct:page2',
    ]);
    expect(first.body.next).toEqual(expect.any(String));
    const keys: string[] = first.body.sessions.map((session: { key: string }) => session.key);
    let next: string | undefined = first.body.next;
    while (next) {
      const page = await gateway.request('GET', `/api/sessions?limit=2&cursor=${encodeURIComponent(next)}`);
      keys.push(...page.body.sessions.map((session: { key: string }) => session.key));
      next = page.body.next;
    }
    const all = await gateway.request('GET', '/api/sessions?limit=1000');
    expect(keys).toEqual(all.body.sessions.map((session: { key: string }) => session.key));
    expect(all.body.next).toBeUndefined();
    const bad = await gateway.request('GET', '/api/sessions?cursor=bm90LWEtY3Vyc29y');
    expect(bad).toMatchObject({ status: 400, body: { error: 'bad_request', field: 'cursor' } });
  });

  it('pages a transcript back from its last entries', async () => {
    for (const text of ['one', 'two', 'three']) await gateway.send(text, 'pager');
    const url = '/api/sessions/agent:main:webchat:direct:pager/transcript';
    const last = await gateway.request('GET', `${url}?last=2`);
    expect(last.body.entries.map((entry: { seq: number }) => entry.seq)).toEqual([4, 5]);
    expect(last.body.next).toBe(4);
    const older = await gateway.request('GET', `${url}?last=3&before=${last.body.next}`);
    expect(older.body.entries.map((entry: { text: string }) => entry.text)).toEqual([
      expect.any(String),
      'two',
      expect.any(String),
    ]);
    expect(older.body.next).toBe(1);
    const first = await gateway.request('GET', `${url}?last=5&before=1`);
    expect(first.body.entries.map((entry: { text: string }) => entry.text)).toEqual(['one']);
    expect(first.body.next).toBeUndefined();
    expect((await gateway.request('GET', `${url}?last=0`)).status).toBe(400);
  });

  it('answers 404 for an unknown session and an unknown route', async () => {
    const unknown = await gateway.request('GET', '/api/sessions/agent:main:webchat:direct:nobody/transcript');
    expect(unknown).toEqual({
      status: 404,
      body: { error: 'not_found', message: 'unknown session: agent:main:webchat:direct:nobody' },
    });
    expect((await gateway.request('GET', '/api/nothing')).status).toBe(404);
  });

  it('answers malformed bodies with 400 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ txt: 'hi' }, 'text'],
      [{ text: 42 }, 'text'],
      [{ text: '' }, 'text'],
      [{ text: 'hi', user: 'no spaces allowed' }, 'user'],
      [{ text: 'hi', thread: '../x' }, 'thread'],
    ];
    for (const [body, field] of cases) {
      const response = await gateway.request('POST', '/api/webchat/messages', body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.field, JSON.stringify(body)).toBe(field);
      expect(response.body.message).toContain(field);
    }
    const notJson = await gateway.request('POST', '/api/webchat/messages', '{"text": ');
    expect(notJson.status).toBe(400);
    expect(notJson.body.error).toBe('bad_request');
  });

  it('answers chat commands without a model: /help, /status, unknown ones', async () => {
    const help = await gateway.send('/help');
    for (const name of ['/help', '/status', '/new', '/stop', '/whoami'])
      expect(help.body.replies[0].text).toContain(name);

    await gateway.send('something to count');
    const status = (await gateway.send('/status')).body.replies[0].text as string;
    expect(status).toContain('Agent: main (Main)');
    expect(status).toContain('Model: none configured');
    expect(status).toContain('queue: 0 waiting');
    expect(status).toMatch(/Uptime: \d+s/);
    expect(status).toContain(`Config: ${gateway.host.loaded?.hash.slice(0, 12)}`);

    const unknown = (await gateway.send('/frobnicate now')).body.replies[0].text as string;
    expect(unknown).toContain('Unknown command /frobnicate');
    expect(unknown).toContain('/help');
    const path = await gateway.send('/usr/bin/env is broken', 'dave');
    expect(path.body.replies[0].text).toContain('No model is configured');
  });

  it('/new starts a fresh transcript under the same key', async () => {
    await gateway.send('before reset', 'erin');
    const before = await gateway.request('GET', '/api/sessions/agent:main:webchat:direct:erin/transcript');
    const reset = await gateway.send('/new', 'erin');
    expect(reset.body.replies[0].text).toBe('Started a fresh session.');
    const after = await gateway.request('GET', '/api/sessions/agent:main:webchat:direct:erin/transcript');
    expect(after.body.entries).toEqual([]);
    expect(after.body.sessionId).not.toBe(before.body.sessionId);
  });

  it('serves the web chat page once with ?token= and then by cookie, with no external resources', async () => {
    const first = await fetch(`${gateway.url}/?token=${gateway.token}`, { redirect: 'manual' });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/');
    const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    expect(first.headers.get('set-cookie')).toContain('HttpOnly');
    const page = await fetch(`${gateway.url}/`, { headers: { cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    // The control UI's own built script, nothing from elsewhere.
    expect(html).toMatch(/<script type="module" crossorigin src="\/assets\/[^"]+\.js">/);
    expect(html).not.toMatch(/(src|href)="https?:/);
    const viaCookie = await fetch(`${gateway.url}/api/sessions`, { headers: { cookie } });
    expect(viaCookie.status).toBe(200);
    const wrongQuery = await fetch(`${gateway.url}/?token=wrong`, { redirect: 'manual' });
    expect(wrongQuery.status).toBe(401);
  });
});

describe('a gateway with the web chat disabled', () => {
  it('serves health and sessions but no web chat', async () => {
    const gateway = await startTestGateway({ config: { channels: { webchat: { enabled: false } } } });
    try {
      expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
      expect((await gateway.request('GET', '/api/sessions')).status).toBe(200);
      expect((await gateway.send('/whoami')).status).toBe(404);
    } finally {
      await gateway.dispose();
    }
  });
});

/** A request with exactly these headers (Node's fetch would add its own Host and no Origin). */
function rawRequest(
  url: string,
  options: { method: string; path: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; headers: IncomingHttpHeaders; body: any }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${url}${options.path}`,
      { method: options.method, headers: { connection: 'close', ...options.headers } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {}
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body });
        });
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

describe('requests from elsewhere', () => {
  let gateway: TestGateway;
  let port: string;
  const message = JSON.stringify({ text: '/whoami' });
  beforeAll(async () => {
    gateway = await startTestGateway();
    port = new URL(gateway.url).port;
  });
  afterAll(async () => {
    await gateway.dispose();
  });

  function post(headers: Record<string, string>, body = message) {
    return rawRequest(gateway.url, {
      method: 'POST',
      path: '/api/webchat/messages',
      headers: { authorization: `Bearer ${gateway.token}`, ...headers },
      body,
    });
  }

  it('refuses a state-changing request whose Origin is another local port or another site', async () => {
    for (const origin of ['http://127.0.0.1:1', `http://evil.example:${port}`, 'null']) {
      const answer = await post({ 'content-type': 'application/json', origin });
      expect(answer.status, origin).toBe(403);
      expect(answer.body.error, origin).toBe('forbidden_origin');
      expect(answer.body.message, origin).toContain(`Origin ${origin}`);
    }
  });

  it('accepts its own Origin, or none (API clients), with JSON', async () => {
    const same = await post({ 'content-type': 'application/json', origin: `http://127.0.0.1:${port}` });
    expect(same.status).toBe(200);
    const localhost = await rawRequest(gateway.url, {
      method: 'POST',
      path: '/api/webchat/messages',
      headers: {
        authorization: `Bearer ${gateway.token}`,
        host: `localhost:${port}`,
        origin: `http://localhost:${port}`,
        'content-type': 'application/json; charset=utf-8',
      },
      body: message,
    });
    expect(localhost.status).toBe(200);
    expect((await post({ 'content-type': 'application/json' })).status).toBe(200);
  });

  it('refuses a state-changing request that is not application/json, with or without a body', async () => {
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      const answer = await post({ 'content-type': type });
      expect(answer.status, type).toBe(415);
      expect(answer.body.message, type).toContain('Content-Type: application/json');
    }
    const bodyless = await post({}, '');
    expect(bodyless.status).toBe(415);
  });

  it('refuses a Host that is not the bound address (DNS rebinding), on pages and the API', async () => {
    for (const path of ['/api/sessions', `/?token=${gateway.token}`]) {
      const answer = await rawRequest(gateway.url, {
        method: 'GET',
        path,
        headers: { authorization: `Bearer ${gateway.token}`, host: `rebound.example:${port}` },
      });
      expect(answer.status, path).toBe(421);
      expect(answer.body.message, path).toContain(`Host rebound.example:${port}`);
      expect(answer.headers['set-cookie'], path).toBeUndefined();
    }
    const otherPort = await rawRequest(gateway.url, {
      method: 'GET',
      path: '/api/sessions',
      headers: { authorization: `Bearer ${gateway.token}`, host: '127.0.0.1:1' },
    });
    expect(otherPort.status).toBe(421);
  });

  it('sends pages with a referrer policy and refuses to be framed', async () => {
    const page = await fetch(`${gateway.url}/`, {
      headers: { cookie: `switchboard_token_${port}=${gateway.token}` },
    });
    expect(page.status).toBe(200);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    const signIn = await fetch(`${gateway.url}/`, { headers: { accept: 'text/html' } });
    expect(signIn.status).toBe(200);
    expect(signIn.headers.get('x-frame-options')).toBe('DENY');
    const refused = await fetch(`${gateway.url}/api/sessions`, { headers: { accept: 'text/html' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-frame-options')).toBe('DENY');
  });
});

describe('long session keys', () => {
  it('serves the transcript and sub-agents of a session with a 64-character user and thread', async () => {
    const agent = 'a'.repeat(64);
    const gateway = await startTestGateway({ config: { agents: { [agent]: {} }, defaultAgent: agent } });
    try {
      const user = 'u'.repeat(64);
      const thread = 't'.repeat(64);
      const sent = await gateway.send('a long key', user, thread);
      const key = sent.body.sessionKey as string;
      expect(key).toBe(`agent:${'a'.repeat(64)}:webchat:direct:${user}:thread:${thread}`);
      for (const encoded of [key, encodeURIComponent(key)]) {
        const transcript = await gateway.request('GET', `/api/sessions/${encoded}/transcript`);
        expect(transcript.status).toBe(200);
        expect(transcript.body.key).toBe(key);
        expect((await gateway.request('GET', `/api/sessions/${encoded}/subagents`)).status).toBe(200);
      }
    } finally {
      await gateway.dispose();
    }
  });
});
