import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startTestGateway, TEST_TOKEN, type TestGateway } from '../helpers/gateway.js';

const BOB_TOKEN = 'bob-token-0123456789abcdef';

/**
 * The chat page's history API through a listening gateway, the real router and session store and
 * a fake model: the signed-in user's threads, a thread's typed messages and answers (tool rounds
 * left out), paged back; another user's chat is not there; bad input is a 400 naming the field.
 */

describe('GET /api/webchat/threads and /api/webchat/history', () => {
  let gateway: TestGateway;
  let model: FakeModelServer;

  beforeAll(async () => {
    model = await startFakeOpenAIServer({ defaultStep: { text: 'noted' } });
    gateway = await startTestGateway({
      config: {
        http: { port: 0, token: TEST_TOKEN, users: { bob: { token: BOB_TOKEN } } },
        models: {
          fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-history-01' },
        },
        agents: { main: { model: 'fake' } },
      },
    });
    // The main chat: a tool round (a call, its result) between the question and the answer.
    model.push(
      { toolCalls: [{ name: 'session_status', arguments: {} }] },
      { text: 'Your session is **fine**.' },
    );
    expect((await gateway.send('how is my session?')).status).toBe(200);
    for (let index = 1; index <= 5; index += 1)
      expect((await gateway.send(`message ${index}`, undefined, 'ops')).status).toBe(200);
    // Another user (the gateway token may still name one): never in local's threads or history.
    expect((await gateway.send('bob was here', 'bob')).status).toBe(200);
    expect((await gateway.send('bob in ops', 'bob', 'ops')).status).toBe(200);
  });

  afterAll(async () => {
    await gateway?.dispose();
    await model?.close();
  });

  it("lists the signed-in user's threads, newest first, and no one else's", async () => {
    const answer = await gateway.request('GET', '/api/webchat/threads');
    expect(answer.status).toBe(200);
    expect(answer.body.user).toBe('local');
    expect(answer.body.threads).toEqual([
      expect.objectContaining({
        thread: 'ops',
        sessionKey: 'agent:main:webchat:direct:local:thread:ops',
        status: 'idle',
      }),
      expect.objectContaining({ sessionKey: 'agent:main:webchat:direct:local', status: 'idle' }),
    ]);
    expect(answer.body.threads[1]).not.toHaveProperty('thread');
  });

  it('gives the main chat: the question and the answer, no tool round', async () => {
    const answer = await gateway.request('GET', '/api/webchat/history');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ sessionKey: 'agent:main:webchat:direct:local', status: 'idle' });
    expect(answer.body.messages.map((message: any) => [message.role, message.text])).toEqual([
      ['user', 'how is my session?'],
      ['assistant', 'Your session is **fine**.'],
    ]);
    expect(answer.body).not.toHaveProperty('next');
    // The store does hold the tool round: the history leaves it out.
    const transcript = await gateway.request(
      'GET',
      `/api/sessions/${encodeURIComponent(answer.body.sessionKey)}/transcript`,
    );
    expect(transcript.body.entries.map((entry: any) => entry.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
  });

  it('pages a thread back with next, oldest first in each page', async () => {
    const first = await gateway.request('GET', '/api/webchat/history?thread=ops&last=4');
    expect(first.status).toBe(200);
    expect(first.body.thread).toBe('ops');
    expect(first.body.messages.map((message: any) => message.text)).toEqual([
      'message 4',
      'noted',
      'message 5',
      'noted',
    ]);
    expect(first.body.next).toBe(first.body.messages[0].seq);
    const second = await gateway.request(
      'GET',
      `/api/webchat/history?thread=ops&last=4&before=${first.body.next}`,
    );
    expect(second.body.messages.map((message: any) => message.text)).toEqual([
      'message 2',
      'noted',
      'message 3',
      'noted',
    ]);
    const third = await gateway.request(
      'GET',
      `/api/webchat/history?thread=ops&last=4&before=${second.body.next}`,
    );
    expect(third.body.messages.map((message: any) => message.text)).toEqual(['message 1', 'noted']);
    expect(third.body).not.toHaveProperty('next');
    expect(JSON.stringify([first.body, second.body, third.body])).not.toContain('bob');
  });

  it('gives a thread with no session no messages (a new thread)', async () => {
    const answer = await gateway.request('GET', '/api/webchat/history?thread=fresh');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      thread: 'fresh',
      sessionKey: 'agent:main:webchat:direct:local:thread:fresh',
      status: 'idle',
      messages: [],
    });
  });

  it('gives a named user, with their own token, their own chat only', async () => {
    const asBob = async (route: string) => {
      const response = await fetch(`${gateway.url}${route}`, {
        headers: { authorization: `Bearer ${BOB_TOKEN}`, connection: 'close' },
      });
      return { status: response.status, body: (await response.json()) as any };
    };
    const threads = await asBob('/api/webchat/threads');
    expect(threads.status).toBe(200);
    expect(threads.body.user).toBe('bob');
    expect(threads.body.threads.map((thread: any) => thread.sessionKey)).toEqual([
      'agent:main:webchat:direct:bob:thread:ops',
      'agent:main:webchat:direct:bob',
    ]);
    const main = await asBob('/api/webchat/history');
    expect(main.body.messages.map((message: any) => message.text)).toEqual(['bob was here', 'noted']);
    const ops = await asBob('/api/webchat/history?thread=ops');
    expect(ops.body.messages.map((message: any) => message.text)).toEqual(['bob in ops', 'noted']);
  });

  it('names a thread by the first words of its first message (issue 33 item 6)', async () => {
    expect(
      (await gateway.send('please check the disk usage on the build host today', undefined, 'disk')).status,
    ).toBe(200);
    const threads = (await gateway.request('GET', '/api/webchat/threads')).body.threads;
    const disk = threads.find((view: any) => view.thread === 'disk');
    expect(disk.title).toBe('please check the disk usage on…');
    expect(threads.find((view: any) => view.thread === undefined)).not.toHaveProperty('title');
  });

  it('refuses bad input with a 400 naming the field, and no sign-in with a 401', async () => {
    const cases: Array<[string, string]> = [
      ['thread=../etc', 'thread'],
      ['last=0', 'last'],
      ['last=201', 'last'],
      ['before=-1', 'before'],
      ['user=bob', 'user'],
    ];
    for (const [query, field] of cases) {
      const answer = await gateway.request('GET', `/api/webchat/history?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body.field, query).toBe(field);
      expect(answer.body.message, query).toContain(field);
    }
    const threads = await gateway.request('GET', '/api/webchat/threads?user=bob');
    expect(threads).toMatchObject({ status: 400, body: { field: 'user' } });
    for (const route of ['/api/webchat/history', '/api/webchat/threads']) {
      const anonymous = await fetch(`${gateway.url}${route}`, { headers: { connection: 'close' } });
      expect(anonymous.status, route).toBe(401);
      await anonymous.body?.cancel();
    }
  });
});
