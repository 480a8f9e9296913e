import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashConfigText, parseJsonc } from '../../src/base/config/index.js';
import type { FakeModelServer, FakeRequest } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { cleanupAfterEach } from '../helpers/teardown.js';
import { openEvents } from '../helpers/webchat-events.js';

// Issue 28 §6: a `gateway` call that will be refused or changes nothing is answered without asking a
// human; "Always" on a gateway edit is written with the edit it approves, as one change.

const cleanups = cleanupAfterEach();

async function setup(
  config: Record<string, unknown> = {},
): Promise<{ gateway: TestGateway; model: FakeModelServer }> {
  const model = await startFakeOpenAIServer();
  cleanups.push(() => model.close());
  const gateway = await startTestGateway({
    config: {
      models: {
        fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-edit-approvals' },
      },
      agents: { main: { model: 'fake', displayName: 'Bot' } },
      commands: { restart: false },
      ...config,
    },
  });
  cleanups.push(() => gateway.dispose());
  return { gateway, model };
}

type Events = { type: string; data: Record<string, unknown> }[];
const replyTexts = (events: Events) =>
  events.filter((event) => event.type === 'reply').map((event) => String(event.data.text));
/** Every tool result the model was sent, parsed, in order. */
const toolResults = (request: FakeRequest) =>
  request.body.messages
    .filter((message: any) => message.role === 'tool')
    .map((message: any) => JSON.parse(message.content));
const auditLines = async (gateway: TestGateway, name: string) =>
  (await readFile(path.join(gateway.dir, 'data', name), 'utf8').catch(() => ''))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));

describe('a gateway call that would be refused or change nothing', () => {
  it('is answered at once, never posted for approval', async () => {
    const { gateway, model } = await setup();
    const stream = await openEvents(gateway, 'local');
    const hash = hashConfigText(await readFile(gateway.configPath, 'utf8'));
    const call = (args: Record<string, unknown>) => ({ name: 'gateway', arguments: args });
    model.push({
      toolCalls: [
        call({ action: 'config.patch', raw: '{"agents":{"main":{"displayName":"X"}}}', baseHash: 'stale' }),
        call({ action: 'config.patch', raw: '{"agents":{"main":{"displayName":"Bot"}}}', baseHash: hash }),
        call({ action: 'config.patch', raw: '{"agents":{"main":{"displayName":"X"}}}' }),
        call({ action: 'restart', reason: 'why not' }),
      ],
    });
    model.push((request) => ({ text: `results: ${JSON.stringify(toolResults(request))}` }));
    const reply = (await gateway.send('try them all')).body.replies.at(-1).text as string;
    const results = JSON.parse(reply.slice('results: '.length));
    expect(results).toEqual([
      { ok: false, error: 'config changed since last load; re-run config.get and retry' },
      { ok: true, result: { changed: false, hash } },
      { ok: false, error: 'config.patch needs baseHash: call config.get first and pass its hash' },
      { ok: false, error: 'Gateway restart is disabled (commands.restart=false).' },
    ]);
    expect(replyTexts(stream.events).filter((text) => text.startsWith('Approval needed'))).toEqual([]);
    expect(await auditLines(gateway, 'approvals-audit.jsonl')).toEqual([]);
  });
});

describe('"Always" on an approved gateway edit', () => {
  it('writes the approvals policy and the edit as one change, and the edit is not lost', async () => {
    const { gateway, model } = await setup();
    const stream = await openEvents(gateway, 'local');
    const hash = hashConfigText(await readFile(gateway.configPath, 'utf8'));
    model.push({
      toolCalls: [
        {
          name: 'gateway',
          arguments: {
            action: 'config.patch',
            raw: '{"agents":{"main":{"displayName":"Renamed"}}}',
            baseHash: hash,
          },
        },
      ],
    });
    model.push((request) => ({ text: `result: ${JSON.stringify(toolResults(request).at(-1))}` }));
    const turn = gateway.send('rename yourself');
    let always = '';
    await expect
      .poll(() => {
        const request = stream.events.find((event) => Array.isArray(event.data.actions));
        const actions = (request?.data.actions ?? []) as { label: string; value: string }[];
        always = actions.find((action) => action.label.startsWith('Always'))?.value ?? '';
        return always;
      })
      .not.toBe('');
    const clicked = await gateway.request('POST', '/api/webchat/action', { action: always });
    expect(clicked.body.text).toMatch(
      /^Approved by webchat:local, and from now on always for gateway in agent main/,
    );
    const result = JSON.parse(((await turn).body.replies.at(-1).text as string).slice('result: '.length));
    expect(result).toMatchObject({ ok: true, result: { changed: true } });
    const written = parseJsonc(await readFile(gateway.configPath, 'utf8'), gateway.configPath);
    expect(written).toMatchObject({
      agents: { main: { displayName: 'Renamed', approvals: { tools: { gateway: 'auto' } } } },
    });
    // One edit: one audit record, from the hash the model read.
    const changes = await auditLines(gateway, 'config-audit.jsonl');
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ previousHash: hash });
  });
});
