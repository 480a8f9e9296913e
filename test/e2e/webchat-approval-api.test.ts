import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startTestGateway } from '../helpers/gateway.js';
import { cleanupAfterEach } from '../helpers/teardown.js';
import { openEvents, type StreamEvent } from '../helpers/webchat-events.js';

/**
 * Clicks through the web chat API into the whole gateway, without a browser: what a page (or
 * anyone with the token) may post to `/api/webchat/action`. Hostile or stale values get a clear
 * answer and change nothing; a pending request is decided once, however often it is clicked.
 */

const API_KEY = 'sk-webchat-approval-api-0001';
const cleanups = cleanupAfterEach();

async function setup() {
  const model = await startFakeOpenAIServer();
  cleanups.push(() => model.close());
  const gateway = await startTestGateway({
    config: {
      tools: { toolpacks: ['shell'] },
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: API_KEY } },
      agents: { main: { model: 'fake' } },
    },
  });
  cleanups.push(() => gateway.dispose());
  const click = (action: unknown, extra: Record<string, unknown> = {}) =>
    gateway.request('POST', '/api/webchat/action', { action, ...extra });
  return { gateway, model, click };
}

const buttonsOf = (event: StreamEvent | undefined) =>
  (event?.data.actions ?? []) as Array<{ label: string; value: string }>;

describe('the web chat click API against the gateway', () => {
  it('answers unknown, malformed and foreign values with a refusal and starts nothing', async () => {
    const { gateway, model, click } = await setup();
    const values = [
      'garbage',
      `sb1:ap_aaaaaaaaaaaa:approve:${'0'.repeat(32)}`,
      `sb1:ap_aaaaaaaaaaaa:launch:${'0'.repeat(32)}`,
      '/approve ABCDEF',
    ];
    for (const value of values) {
      for (const user of ['local', 'mallory']) {
        const answer = await click(value, { user });
        expect(answer.status, value).toBe(200);
        expect(answer.body.text, value).toMatch(/^Refused: /);
      }
    }
    const malformed = await gateway.request('POST', '/api/webchat/action', '{"action": ');
    expect(malformed.status).toBe(400);
    expect((await click(['a'])).body).toMatchObject({ error: 'bad_request', field: 'action' });
    // A click is never a turn and never stored: no session, no model call.
    expect((await gateway.request('GET', '/api/sessions')).body.sessions).toEqual([]);
    expect(model.requests).toHaveLength(0);
    expect((await gateway.send('/whoami')).body.replies[0].text).toBe('You are webchat:local (owner).');
  });

  it('refuses an edited value, then runs the command once for two clicks at the same time', async () => {
    const { gateway, model, click } = await setup();
    const events = await openEvents(gateway, 'local');
    model.push({ toolCalls: [{ name: 'shell.exec', arguments: { command: 'echo once >> runs.txt' } }] });
    model.push({ text: 'done' });
    const turn = gateway.send('run it');
    await expect.poll(() => events.events.some((event) => Array.isArray(event.data.actions))).toBe(true);
    const request = events.events.find((event) => Array.isArray(event.data.actions));
    const approve = buttonsOf(request).find((action) => action.label === 'Approve')?.value ?? '';
    expect(approve).not.toBe('');

    // The same request and decision with another arguments hash: a payload edited on its way.
    const edited = approve.replace(/:[0-9a-f]{32}$/, `:${'f'.repeat(32)}`);
    expect(edited).not.toBe(approve);
    expect((await click(edited)).body.text).toMatch(/^Refused: /);

    const [first, second] = await Promise.all([click(approve), click(approve)]);
    const texts = [first.body.text, second.body.text].sort();
    expect(texts[0]).toMatch(/^Already decided\. Approved by webchat:local/);
    expect(texts[1]).toMatch(/^Approved by webchat:local/);
    expect((await turn).body.replies.at(-1).text).toBe('done');
    const runs = await readFile(path.join(gateway.dir, 'data/workspaces/main/runs.txt'), 'utf8');
    expect(runs).toBe('once\n');
    expect((await click(approve)).body.text).toMatch(/^Already decided/);
    expect(model.requests).toHaveLength(2);
  });
});
