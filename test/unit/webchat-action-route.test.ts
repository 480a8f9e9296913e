import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import type { InboundMessage } from '../../src/base/messages/index.js';
import { createWebchatAdapter, type WebchatEvent } from '../../src/surfaces/channels/index.js';
import { createControlServer } from '../../src/surfaces/control/index.js';

/**
 * `POST /api/webchat/action` through fastify's `inject()` into the real web chat adapter, whose
 * handler stands in for the router: it answers a click at once with one reply, as the router does.
 */

const TOKEN = 'test-token';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const JSON_AUTH = { ...AUTH, 'content-type': 'application/json' };
const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });
const BUTTONS = [
  { label: 'Approve', value: 'approval:a1:approve', style: 'primary' as const },
  { label: 'Deny', value: 'approval:a1:deny', style: 'danger' as const },
];

let server: Awaited<ReturnType<typeof createControlServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve() {
  const heard: InboundMessage[] = [];
  const webchat = createWebchatAdapter({ logger });
  await webchat.start(async (message) => {
    heard.push(message);
    const sessionKey = `agent:main:webchat:direct:${message.chatId}`;
    if (message.action === undefined)
      return { sessionKey, replies: [{ id: 'q1', text: 'Run shell.exec?', actions: BUTTONS }] };
    return { sessionKey, replies: [{ id: 'answer', text: `Approved by ${message.senderId}` }] };
  });
  server = await createControlServer({
    host: '0.0.0.0',
    port: 0,
    token: TOKEN,
    logger,
    sessions: { list: async () => ({ sessions: [] }), transcript: async () => undefined } as never,
    toolpacks: { report: () => ({ toolpacks: [], builtins: [], problems: [], schedulerHooks: [] }) },
    webchat,
  });
  const { app } = server;
  const click = (payload: unknown, headers: Record<string, string> = JSON_AUTH) =>
    app.inject({ method: 'POST', url: '/api/webchat/action', headers, payload: payload as object });
  return { app, webchat, heard, click };
}

describe('the web chat click API', () => {
  it("dispatches the button's value as the user's action and answers the router's text", async () => {
    const { webchat, heard, click } = await serve();
    const events: WebchatEvent[] = [];
    webchat.subscribe('ann', (event) => events.push(event));
    const answer = await click({ action: 'approval:a1:approve', user: 'ann', thread: 't1', reply: 'q1' });
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ text: 'Approved by webchat:ann' });
    expect(heard).toEqual([expect.objectContaining({ senderId: 'webchat:ann', threadId: 't1', text: '' })]);
    expect(heard[0]?.action).toBe('approval:a1:approve');
    // The user's other pages replace the buttons of the clicked reply too.
    expect(events).toEqual([
      { type: 'reply.decided', id: 'q1', text: 'Approved by webchat:ann', thread: 't1' },
    ]);

    const local = await click({ action: 'approval:a1:deny' });
    expect(local.json()).toEqual({ text: 'Approved by webchat:local' });
    expect(heard[1]).toMatchObject({
      senderId: 'webchat:local',
      chatId: 'local',
      action: 'approval:a1:deny',
    });
  });

  it('answers a malformed click with 400 naming the field, and dispatches nothing', async () => {
    const { heard, click } = await serve();
    const cases: Array<[unknown, string]> = [
      [{}, 'action'],
      [{ action: '' }, 'action'],
      [{ action: 'x'.repeat(101) }, 'action'],
      [{ action: 42 }, 'action'],
      [{ action: 'a', user: 'no spaces' }, 'user'],
      [{ action: 'a', thread: '../etc' }, 'thread'],
      [{ action: 'a', reply: '<script>' }, 'reply'],
      [{ action: 'a', by: 'webchat:owner' }, 'by'],
    ];
    for (const [payload, field] of cases) {
      const answer = await click(payload);
      expect(answer.statusCode, JSON.stringify(payload)).toBe(400);
      expect(answer.json()).toMatchObject({ error: 'bad_request', field });
    }
    const notJson = await click('{"action":', JSON_AUTH);
    expect(notJson.statusCode).toBe(400);
    expect(heard).toEqual([]);
  });

  it('needs the token and passes the request guard like the message route', async () => {
    const { heard, click } = await serve();
    const anonymous = await click({ action: 'a' }, { 'content-type': 'application/json' });
    expect(anonymous.statusCode).toBe(401);
    const form = await click('action=a', { ...AUTH, 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.statusCode).toBe(415);
    const foreign = await click(
      { action: 'a' },
      { ...JSON_AUTH, origin: 'http://evil.example', host: 'localhost:8787' },
    );
    expect(foreign.statusCode).toBe(403);
    expect(heard).toEqual([]);
  });

  it('answers 503 once the web chat has stopped', async () => {
    const { webchat, click } = await serve();
    await webchat.stop();
    const answer = await click({ action: 'approval:a1:approve' });
    expect(answer.statusCode).toBe(503);
    expect(answer.json()).toEqual({ error: 'unavailable', message: 'web chat is not accepting messages' });
  });

  it("returns a reply's buttons in the message route's answer too", async () => {
    const { app } = await serve();
    const answer = await app.inject({
      method: 'POST',
      url: '/api/webchat/messages',
      headers: JSON_AUTH,
      payload: { text: 'run ls' },
    });
    expect(answer.json().replies).toEqual([{ id: 'q1', text: 'Run shell.exec?', actions: BUTTONS }]);
  });
});
