import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { openEvents } from '../helpers/webchat-events.js';

/** `chat.attach` in a web chat session: the real tool loop against the fake OpenAI server. */

let gateway: TestGateway | undefined;
let closeModel: (() => Promise<void>) | undefined;

afterEach(async () => {
  await gateway?.dispose();
  await closeModel?.();
  gateway = undefined;
  closeModel = undefined;
});

async function setup() {
  const model = await startFakeOpenAIServer();
  closeModel = () => model.close();
  gateway = await startTestGateway({
    config: {
      models: {
        fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-webchat-files' },
      },
      agents: { main: { model: 'fake' } },
    },
  });
  return { model, gateway };
}

describe('files sent to the web chat', () => {
  it('publishes a download link for chat.attach, served with auth only', async () => {
    const { model, gateway } = await setup();
    const workspace = path.join(gateway.dir, 'data/workspaces/main');
    await mkdir(workspace, { recursive: true });
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0x0a, 0x01]);
    await writeFile(path.join(workspace, 'plot.png'), bytes);
    model.push({
      toolCalls: [{ name: 'chat.attach', arguments: { path: '/workspace/plot.png', comment: 'the plot' } }],
    });
    model.push({ text: 'attached' });
    const events = await openEvents(gateway, 'alice');

    const answer = await gateway.send('the plot please', 'alice');
    expect(answer.status).toBe(200);
    await expect.poll(() => events.events.some((event) => event.type === 'file')).toBe(true);
    const file = events.events.find((event) => event.type === 'file')?.data as Record<string, string>;
    expect(file).toMatchObject({
      type: 'file',
      name: 'plot.png',
      size: bytes.byteLength,
      comment: 'the plot',
    });
    expect(file.url).toMatch(/^\/api\/webchat\/files\/[0-9a-f]{32}\/plot\.png$/);
    // The tool answered ok: the model's next request holds the tool's result.
    expect(JSON.stringify(model.requests[1].messages)).not.toContain('cannot be sent');

    const served = await fetch(`${gateway.url}${file.url}`, {
      headers: { authorization: `Bearer ${gateway.token}`, connection: 'close' },
    });
    expect(served.status).toBe(200);
    expect(served.headers.get('content-disposition')).toBe('attachment; filename="plot.png"');
    expect(Buffer.from(await served.arrayBuffer())).toEqual(bytes);

    const anonymous = await fetch(`${gateway.url}${file.url}`, { headers: { connection: 'close' } });
    expect(anonymous.status).toBe(401);
  });

  it('answers 404 naming an unknown id, and never serves a path outside its folder', async () => {
    const { gateway } = await setup();
    await writeFile(path.join(gateway.dir, 'data/secret.txt'), 'do not serve');
    const unknown = await gateway.request('GET', `/api/webchat/files/${'0'.repeat(32)}/plot.png`);
    expect(unknown.status).toBe(404);
    expect(JSON.stringify(unknown.body)).toContain('0'.repeat(32));
    for (const route of [
      '/api/webchat/files/..%2F..%2Fdata/secret.txt',
      '/api/webchat/files/..%2F/secret.txt',
      '/api/webchat/files/%2E%2E/secret.txt',
      '/api/webchat/files/0/..%2F..%2Fsecret.txt',
      `/api/webchat/files/${'a'.repeat(32)}/..%2F..%2Fsecret.txt`,
      `/api/webchat/files/${'a'.repeat(32)}/..`,
    ]) {
      const response = await gateway.request('GET', route);
      expect(response.status, route).toBe(404);
      expect(JSON.stringify(response.body), route).not.toContain('do not serve');
    }
  });
});
