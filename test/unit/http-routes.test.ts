import { afterEach, describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../src/base/errors/index.js';
import { createLogger } from '../../src/base/logging/index.js';
import {
  type ControlServerOptions,
  createControlServer,
  type SessionsView,
  type WebuiEntry,
} from '../../src/surfaces/control/index.js';
import type { WebchatPort } from '../../src/surfaces/http/index.js';

/**
 * The HTTP routes through fastify's `inject()`: no socket, no gateway; the views and ports the
 * gateway would pass are small fakes. The server is bound to `0.0.0.0` on paper, so the Host rule
 * (which needs the socket's port) accepts every request; that rule is tested over a socket in
 * test/integration/http-api.test.ts.
 */

const TOKEN = 'test-token';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const JSON_AUTH = { ...AUTH, 'content-type': 'application/json' };
const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });

const ENTRIES: WebuiEntry[] = [
  {
    toolpack: 'counter',
    id: 'bump',
    title: 'Bump',
    kind: 'action',
    inputSchema: {
      type: 'object',
      properties: { by: { type: 'integer', minimum: 1 } },
      required: ['by'],
      additionalProperties: false,
    },
  },
  { toolpack: 'counter', id: 'show', title: 'Show', kind: 'panel' },
];

/** What the routes asked the sessions view for. */
const asked: { lists: unknown[]; transcripts: unknown[] } = { lists: [], transcripts: [] };

const sessions: SessionsView = {
  list: async (page) => {
    asked.lists.push(page);
    return {
      sessions: [
        {
          key: 'agent:main:webchat:direct:local',
          agentId: 'main',
          sessionId: 's1',
          channel: 'webchat',
          chatType: 'direct',
          createdAt: '2026-01-01T00:00:00.000Z',
          lastActivityAt: '2026-01-01T00:00:00.000Z',
          transcriptLength: 2,
          status: 'idle',
        },
      ],
      next: 'the-next-cursor',
    };
  },
  transcript: async (key, read) => {
    asked.transcripts.push(read);
    return key === 'agent:main:webchat:direct:local' ? { key, sessionId: 's1', entries: [] } : undefined;
  },
  subagents: async (key, recentMinutes) => (key.startsWith('agent:') ? { key, recentMinutes } : undefined),
};

let server: Awaited<ReturnType<typeof createControlServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  asked.lists.length = 0;
  asked.transcripts.length = 0;
});

async function serve(overrides: Partial<ControlServerOptions> = {}) {
  const received: Parameters<WebchatPort['receive']>[0][] = [];
  const webchat: WebchatPort = {
    async receive(input) {
      received.push(input);
      if (input.text === 'stopping') throw new SwitchboardError('GATEWAY_STATE', 'the gateway is stopping');
      return {
        sessionKey: `agent:main:webchat:direct:${input.user}`,
        replies: [{ id: 'r1', text: `echo ${input.text}`, notice: false }],
      };
    },
    receiveClick: async (input) => ({ sessionKey: `agent:main:webchat:direct:${input.user}`, replies: [] }),
    subscribe: () => () => {},
  };
  server = await createControlServer({
    host: '0.0.0.0',
    port: 0,
    token: TOKEN,
    logger,
    sessions,
    toolpacks: { report: () => ({ toolpacks: [], builtins: ['shell'], problems: [], schedulerHooks: [] }) },
    webchat,
    toolUi: {
      projectId: 'demo',
      entries: () => ENTRIES,
      async run(_toolpack, entryId, input) {
        if (entryId === 'show') return { output: { count: 3 }, title: 'Count' };
        const by = (input as { by: number }).by;
        if (by === 13) throw Object.assign(new Error('13 is unlucky'), { statusCode: 422, path: '/by' });
        if (by === 99) throw new Error('the controller crashed');
        return { output: { count: 3 + by } };
      },
      roster: () => [{ id: 'main', displayName: 'Main' }],
    },
    channels: () => ({ webchat: 'connected', slack: 'connected' }),
    ...overrides,
  });
  return { app: server.app, received };
}

describe('health (public)', () => {
  it('answers /healthz and /readyz without a token while every channel is connected', async () => {
    const { app } = await serve();
    const live = await app.inject({ url: '/healthz' });
    expect(live.statusCode).toBe(200);
    expect(live.json()).toEqual({
      status: 'ok',
      mode: 'normal',
      channels: { webchat: 'connected', slack: 'connected' },
      down: [],
    });
    const ready = await app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({ ready: true, status: 'ok' });
  });

  it('says degraded on /healthz and 503 on /readyz naming the channels that are down', async () => {
    const { app } = await serve({
      channels: () => ({ webchat: 'connected', slack: 'retrying', discord: 'refused' }),
    });
    const live = await app.inject({ url: '/healthz' });
    expect(live.statusCode).toBe(200);
    expect(live.json()).toMatchObject({ status: 'degraded', down: ['slack', 'discord'] });
    const ready = await app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({ ready: false, down: ['slack', 'discord'] });
  });
});

describe('readiness and metrics', () => {
  it('answers /readyz 503 with the store named when its probe fails, states only', async () => {
    const { app } = await serve({ storeProbe: async () => 'timeout' });
    const ready = await app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toEqual({
      ready: false,
      status: 'ok',
      mode: 'normal',
      channels: { webchat: 'connected', slack: 'connected' },
      down: [],
      store: 'timeout',
      reasons: [{ component: 'store', state: 'timeout' }],
    });
    // Liveness does not ask the store.
    expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);
  });

  it('names the store first, then each channel that is down', async () => {
    const { app } = await serve({
      storeProbe: async () => 'unreachable',
      channels: () => ({ webchat: 'connected', slack: 'retrying' }),
    });
    const ready = await app.inject({ url: '/readyz' });
    expect(ready.json().reasons).toEqual([
      { component: 'store', state: 'unreachable' },
      { component: 'slack', state: 'retrying' },
    ]);
  });

  it('serves /metrics behind the token, without it when public, and not at all without a port', async () => {
    const port = { contentType: 'text/plain; version=0.0.4; charset=utf-8', text: async () => 'up 1\n' };
    const closed = await serve({ metrics: { port, public: false } });
    expect((await closed.app.inject({ url: '/metrics' })).statusCode).toBe(401);
    const answer = await closed.app.inject({ url: '/metrics', headers: AUTH });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toBe(port.contentType);
    expect(answer.body).toBe('up 1\n');
    expect((await closed.app.inject({ url: '/metrics?x=1', headers: AUTH })).statusCode).toBe(400);
    const open = await serve({ metrics: { port, public: true } });
    expect((await open.app.inject({ url: '/metrics' })).statusCode).toBe(200);
    const none = await serve();
    expect((await none.app.inject({ url: '/metrics', headers: AUTH })).statusCode).toBe(404);
  });
});

describe('the token', () => {
  it('refuses the API without it (JSON), with a wrong one, and shows browsers the sign-in page', async () => {
    const { app } = await serve();
    const missing = await app.inject({ url: '/api/sessions' });
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toMatchObject({
      error: 'unauthorized',
      message: expect.stringContaining('missing token'),
    });
    const wrong = await app.inject({ url: '/api/sessions', headers: { authorization: 'Bearer nope' } });
    expect(wrong.json()).toMatchObject({ message: 'wrong bearer token' });
    // A browser opening an API address (a file link) is told where to sign in ...
    const link = await app.inject({ url: '/api/sessions', headers: { accept: 'text/html' } });
    expect(link.statusCode).toBe(401);
    expect(link.headers['content-type']).toContain('text/html');
    expect(link.body).toContain('Not signed in');
    // ... and the control UI's pages are served: they hold no data and show the sign-in form.
    const page = await app.inject({ url: '/tools', headers: { accept: 'text/html' } });
    expect(page.statusCode).toBe(200);
  });
});

describe('sessions', () => {
  it('lists sessions, serves a transcript and answers 404 for an unknown one', async () => {
    const { app } = await serve();
    const list = await app.inject({ url: '/api/sessions', headers: AUTH });
    expect(list.json().sessions).toHaveLength(1);
    const transcript = await app.inject({
      url: `/api/sessions/${encodeURIComponent('agent:main:webchat:direct:local')}/transcript`,
      headers: AUTH,
    });
    expect(transcript.json()).toEqual({
      key: 'agent:main:webchat:direct:local',
      sessionId: 's1',
      entries: [],
    });
    const unknown = await app.inject({ url: '/api/sessions/nope/transcript', headers: AUTH });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: 'not_found', message: 'unknown session: nope' });
  });

  it('pages the list: a default limit, the limit and cursor passed on, next answered', async () => {
    const { app } = await serve();
    const first = await app.inject({ url: '/api/sessions', headers: AUTH });
    expect(first.json()).toMatchObject({ next: 'the-next-cursor' });
    // A cursor the store made (base64url of [order, key]): passed on as it came.
    const cursor = Buffer.from(JSON.stringify([1764590000000, 'agent:main:webchat:direct:bob'])).toString(
      'base64url',
    );
    const second = await app.inject({ url: `/api/sessions?limit=5&cursor=${cursor}`, headers: AUTH });
    expect(second.statusCode).toBe(200);
    expect(asked.lists).toEqual([{ limit: 100 }, { limit: 5, cursor }]);
  });

  it('refuses a limit out of range and a cursor it did not make, naming the field', async () => {
    const { app } = await serve();
    const refusals = [
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['limit=ten', 'limit'],
      ['cursor=not-a-cursor', 'cursor'],
      [`cursor=${Buffer.from('[1,2]').toString('base64url')}`, 'cursor'],
      ['cursor=', 'cursor'],
      ['offset=10', 'offset'],
    ];
    for (const [query, field] of refusals) {
      const answer = await app.inject({ url: `/api/sessions?${query}`, headers: AUTH });
      expect({ query, status: answer.statusCode, body: answer.json() }).toMatchObject({
        status: 400,
        body: { error: 'bad_request', field },
      });
    }
    expect(asked.lists).toEqual([]);
  });

  it('pages a transcript with last and before, and refuses counts out of range', async () => {
    const { app } = await serve();
    const url = `/api/sessions/${encodeURIComponent('agent:main:webchat:direct:local')}/transcript`;
    for (const query of ['', '?last=20', '?last=20&before=40', '?before=7'])
      expect((await app.inject({ url: `${url}${query}`, headers: AUTH })).statusCode).toBe(200);
    expect(asked.transcripts).toEqual([{}, { last: 20 }, { last: 20, before: 40 }, { last: 200, before: 7 }]);
    for (const query of ['?last=0', '?last=1001', '?before=-1', '?from=3']) {
      const answer = await app.inject({ url: `${url}${query}`, headers: AUTH });
      expect({ query, status: answer.statusCode }).toEqual({ query, status: 400 });
    }
  });

  it('passes recentMinutes as a number and refuses one that is not digits, naming the field', async () => {
    const { app } = await serve();
    const listed = await app.inject({
      url: '/api/sessions/agent:x/subagents?recentMinutes=30',
      headers: AUTH,
    });
    expect(listed.json()).toEqual({ key: 'agent:x', recentMinutes: 30 });
    const bad = await app.inject({
      url: '/api/sessions/agent:x/subagents?recentMinutes=soon',
      headers: AUTH,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'bad_request', field: 'recentMinutes' });
    const extra = await app.inject({ url: '/api/sessions/agent:x/subagents?later=1', headers: AUTH });
    expect(extra.json()).toMatchObject({ field: 'later', message: 'later: is not a known field' });
  });
});

describe('the web chat API', () => {
  it('hands a message to the web chat (user local by default) and answers its replies', async () => {
    const { app, received } = await serve();
    const answer = await app.inject({
      method: 'POST',
      url: '/api/webchat/messages',
      headers: JSON_AUTH,
      payload: { text: 'hi', thread: 't1' },
    });
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({
      sessionKey: 'agent:main:webchat:direct:local',
      replies: [{ id: 'r1', text: 'echo hi' }],
    });
    expect(received).toEqual([{ text: 'hi', user: 'local', thread: 't1' }]);
  });

  it('answers malformed bodies with 400 naming the field, and a stopping gateway with 503', async () => {
    const { app, received } = await serve();
    const post = (payload: unknown) =>
      app.inject({
        method: 'POST',
        url: '/api/webchat/messages',
        headers: JSON_AUTH,
        payload: payload as object,
      });
    expect((await post({})).json()).toMatchObject({ field: 'text', message: 'text: is required' });
    expect((await post({ text: 'x', colour: 'red' })).json()).toMatchObject({ field: 'colour' });
    expect((await post({ text: 'x', user: 'no spaces please' })).json()).toMatchObject({ field: 'user' });
    expect(received).toEqual([]);
    const stopping = await post({ text: 'stopping' });
    expect(stopping.statusCode).toBe(503);
    expect(stopping.json()).toEqual({ error: 'unavailable', message: 'the gateway is stopping' });
  });
});

describe('the Tools page API', () => {
  const run = (app: NonNullable<typeof server>['app'], path: string, payload?: object) =>
    app.inject({ method: 'POST', url: `/api/projects/${path}`, headers: JSON_AUTH, payload: payload ?? {} });

  it('lists entries with every key present and the roster; an unknown project is 404', async () => {
    const { app } = await serve();
    const listed = await app.inject({ url: '/api/projects/demo/tool-ui', headers: AUTH });
    expect(listed.json().entries[1]).toEqual({
      toolpack: 'counter',
      id: 'show',
      title: 'Show',
      description: null,
      kind: 'panel',
      inputSchema: null,
      submitLabel: null,
    });
    const roster = await app.inject({ url: '/api/projects/demo/roster', headers: AUTH });
    expect(roster.json()).toEqual({ agents: [{ id: 'main', displayName: 'Main' }] });
    const other = await app.inject({ url: '/api/projects/other/tool-ui', headers: AUTH });
    expect(other.statusCode).toBe(404);
  });

  it('answers 400 with the path when the input does not match the entry schema, before running it', async () => {
    const { app } = await serve();
    const missing = await run(app, 'demo/tool-ui/counter/bump', {});
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ error: 'bad_request', path: '/by' });
    const small = await run(app, 'demo/tool-ui/counter/bump', { by: 0 });
    expect(small.statusCode).toBe(400);
    expect(small.json()).toMatchObject({ path: '/by', message: expect.stringMatching(/^input \/by: /) });
    expect((await run(app, 'demo/tool-ui/counter/bump', { by: 2 })).json()).toEqual({ output: { count: 5 } });
  });

  it("answers a controller's refusal with its status and path, a crash with 500, unknown entries with 404", async () => {
    const { app } = await serve();
    const refused = await run(app, 'demo/tool-ui/counter/bump', { by: 13 });
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toEqual({ error: 'bad_request', path: '/by', message: '13 is unlucky' });
    const crashed = await run(app, 'demo/tool-ui/counter/bump', { by: 99 });
    expect(crashed.statusCode).toBe(500);
    expect(crashed.json()).toEqual({
      error: 'webui_failed',
      message: 'WebUI entry bump of the counter toolpack failed: the controller crashed',
    });
    expect((await run(app, 'demo/tool-ui/counter/nope')).json().message).toBe(
      'the counter toolpack has no WebUI entry nope',
    );
    expect((await run(app, 'demo/tool-ui/ghost/bump')).json().message).toBe('unknown toolpack: ghost');
  });
});

describe('the request guard', () => {
  it('refuses a state-changing request that is not JSON (415) or comes from another origin (403)', async () => {
    const { app, received } = await serve();
    const text = await app.inject({
      method: 'POST',
      url: '/api/webchat/messages',
      headers: { ...AUTH, 'content-type': 'text/plain' },
      payload: 'hi',
    });
    expect(text.statusCode).toBe(415);
    expect(text.json().error).toBe('unsupported_media_type');
    const foreign = await app.inject({
      method: 'POST',
      url: '/api/webchat/messages',
      headers: { ...JSON_AUTH, origin: 'http://evil.example', host: 'localhost:8787' },
      payload: { text: 'hi' },
    });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().error).toBe('forbidden_origin');
    const own = await app.inject({
      method: 'POST',
      url: '/api/webchat/messages',
      headers: { ...JSON_AUTH, origin: 'http://localhost:8787', host: 'localhost:8787' },
      payload: { text: 'hi' },
    });
    expect(own.statusCode).toBe(200);
    expect(received).toHaveLength(1);
  });

  it("leaves Slack's signed route to its own checks, and answers unknown routes 404 in JSON", async () => {
    const { app } = await serve({ slackEvents: (_request, response) => response.end('bolt') });
    const unsigned = await app.inject({
      method: 'POST',
      url: '/slack/events',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'payload=x',
    });
    expect(unsigned.statusCode).toBe(401);
    expect(unsigned.json().message).toContain('X-Slack-Request-Timestamp');
    const timely = await app.inject({
      method: 'POST',
      url: '/slack/events',
      headers: { 'x-slack-request-timestamp': String(Math.floor(Date.now() / 1000)) },
      payload: '{}',
    });
    expect(timely.body).toBe('bolt');
    const unknown = await app.inject({ url: '/api/nothing', headers: AUTH });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: 'not_found', message: 'no route GET /api/nothing' });
    expect(unknown.headers['x-frame-options']).toBe('DENY');
  });
});
