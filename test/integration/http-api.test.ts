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
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('refuses the API without the token or with a wrong one', async () => {
    const missing = await fetch(`${gateway.url}/api/sessions`);
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as { message: string }).message).toContain('Authorization: Bearer');
    const wrong = await fetch(`${gateway.url}/api/sessions`, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    const page = await fetch(`${gateway.url}/`, { redirect: 'manual' });
    expect(page.status).toBe(401);
  });

  it('answers /whoami for the local web chat user as an owner, and others as not', async () => {
    const local = await gateway.send('/whoami');
    expect(local.status).toBe(200);
    expect(local.body).toEqual({
      sessionKey: 'agent:main:webchat:direct:local',
      replies: [{ id: expect.any(String), text: 'You are webchat:local (owner).' }],
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
    expect(html).toContain('<script>');
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
