import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { sessionOf } from '../fakes/subagent-script.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { REPO_ROOT } from '../helpers/process.js';
import { openEvents } from '../helpers/webchat-events.js';

/**
 * Registered toolpacks at start, over the real HTTP API: a good one loads, a broken one is skipped
 * and reported (log and API) while the gateway runs; a config edit that adds a broken toolpack is
 * refused before it is written.
 */

const REVIEW_TOOLS = path.join(REPO_ROOT, 'test/fixtures/toolpacks/review-tools');
const BROKEN = path.join(REPO_ROOT, 'test/fixtures/bad-toolpacks/controller-missing');

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.dispose();
  gateway = undefined;
});

describe('built-in toolpacks', () => {
  it('registers file and shell when listed: the model writes and reads its workspace; shell is for owners', async () => {
    const model = await startFakeOpenAIServer();
    try {
      gateway = await startTestGateway({
        config: {
          tools: { toolpacks: ['file', 'shell'] },
          models: {
            fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-test-files' },
          },
          agents: { main: { model: 'fake' } },
        },
      });
      model.push({
        toolCalls: [{ name: 'file.write', arguments: { path: 'notes/today.md', content: 'ship it' } }],
      });
      model.push({ toolCalls: [{ name: 'file.read', arguments: { path: '/workspace/notes/today.md' } }] });
      model.push({ text: 'done' });
      await gateway.send('write and read a note');
      const onDisk = await readFile(path.join(gateway.dir, 'data/workspaces/main/notes/today.md'), 'utf8');
      expect(onDisk).toBe('ship it');
      const read = JSON.parse(model.requests[2].messages.at(-1).content);
      expect(read).toMatchObject({ ok: true, text: 'ship it' });
      const offered = (request: any) =>
        request.tools.map((tool: any) => tool.function.name.replaceAll('__', '.'));
      expect(offered(model.requests[0])).toEqual(
        expect.arrayContaining(['file.read', 'file.write', 'file.patch', 'shell.exec']),
      );

      model.push({ text: 'no shell for you' });
      await gateway.send('run something', 'mallory');
      expect(offered(model.requests[3])).toContain('file.read');
      expect(offered(model.requests[3])).not.toContain('shell.exec');
    } finally {
      await model.close();
    }
  });
});

describe('local toolpacks at run time', () => {
  it('runs review-tools unchanged: model → runner process → callSupport → controller → recordSignal', async () => {
    // Scripted per session: the pm's wake turn may ask the model before main's second request.
    const mainSteps = [
      {
        toolCalls: [
          { name: 'review.summarize', arguments: {} },
          { name: 'review.summarize', arguments: { summary: 'two nits, one bug' } },
        ],
      },
      { text: 'recorded' },
    ];
    const model = await startFakeOpenAIServer({
      defaultStep: (request) =>
        (sessionOf(request) === 'agent:main:webchat:direct:local' ? mainSteps.shift() : undefined) ?? {
          text: 'ok',
        },
    });
    try {
      gateway = await startTestGateway({
        config: {
          tools: { toolpacks: [{ path: REVIEW_TOOLS, id: 'review-tools' }] },
          models: {
            fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-test-review' },
          },
          agents: { main: { model: 'fake', tools: ['review.*'] }, pm: { model: 'fake', tools: [] } },
          scheduler: { tickMs: 50 },
        },
      });
      const response = await gateway.send('summarize the review');
      expect(response.body.replies.at(-1).text).toBe('recorded');
      const ofSession = (session: string) =>
        model.received.filter((request) => sessionOf(request) === session);
      const results = ofSession('agent:main:webchat:direct:local')[1]?.body.messages.filter(
        (message: any) => message.role === 'tool',
      );
      // Arguments are checked against the manifest's inputSchema before the runner sees them.
      expect(results[0].content).toContain('/summary: is required');
      expect(JSON.parse(results[1].content)).toEqual({
        output: 'Review summary recorded: two nits, one bug',
      });
      // The controller's signal wakes the pm agent with a turn in its main session.
      await model.waitForRequests(3);
      const woken = ofSession('agent:pm:main')[0];
      expect(woken?.body.messages.at(-1).content).toContain('"kind":"review.summarized"');
      expect(woken?.body.messages.at(-1).content).toContain('two nits, one bug');
    } finally {
      await model.close();
    }
  });
});

describe('the core toolpack', () => {
  it('messages.send wakes another agent with the message and posts to a named route', async () => {
    const model = await startFakeOpenAIServer();
    try {
      gateway = await startTestGateway({
        config: {
          tools: { toolpacks: ['core'] },
          routes: { '#lobby': 'webchat:local' },
          models: {
            fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-test-core' },
          },
          agents: { main: { model: 'fake' }, ops: { model: 'fake', tools: [] } },
          scheduler: { tickMs: 50 },
        },
      });
      const events = await openEvents(gateway, 'local');
      model.push({
        toolCalls: [
          { name: 'messages.send', arguments: { recipient: 'ops', body: 'disk at 91%' } },
          { name: 'messages.send', arguments: { channel: '#lobby', body: 'heads up: disk at 91%' } },
          { name: 'coordination.wait_for_signal', arguments: { reason: 'ops to answer' } },
        ],
      });
      const response = await gateway.send('tell ops and the lobby');
      // wait_for_signal ended the run: no second model call for this turn.
      expect(response.body.replies).toEqual([]);
      await expect
        .poll(() => events.events.filter((event) => event.type === 'reply').map((event) => event.data.text))
        .toContain('main: heads up: disk at 91%');
      await model.waitForRequests(2);
      const woken = model.requests[1];
      expect(woken.messages[0].content).toContain('(session agent:ops:main)');
      expect(woken.messages.at(-1).content).toContain('"kind":"message.created"');
      expect(woken.messages.at(-1).content).toContain('disk at 91%');
      // No priority given: messages.send's default, P3 (Suzumio's).
      expect(woken.messages.at(-1).content).toContain('"priority":"P3"');
    } finally {
      await model.close();
    }
  });
});

describe('toolpack registration', () => {
  it('loads the good toolpacks, skips and reports a broken one, and keeps running', async () => {
    gateway = await startTestGateway({
      config: {
        tools: {
          toolpacks: [
            'file',
            { path: REVIEW_TOOLS, id: 'review-tools' },
            { path: BROKEN, id: 'controller-missing' },
          ],
        },
      },
    });
    const report = await gateway.request('GET', '/api/toolpacks');
    expect(report.status).toBe(200);
    expect(report.body.builtins).toEqual(['file']);
    expect(report.body.toolpacks).toEqual([
      expect.objectContaining({ id: 'review-tools', tools: ['review.summarize'], webui: ['review.stats'] }),
    ]);
    expect(report.body.problems).toEqual([
      expect.objectContaining({
        rule: 'controller-missing',
        file: path.join(BROKEN, 'suzumio.toolpack.json'),
      }),
    ]);
    expect(
      gateway.logLines.some(
        (line) => line.includes('toolpack skipped') && line.includes('controller-missing'),
      ),
    ).toBe(true);
    expect((await gateway.send('/whoami')).body.replies[0].text).toContain('webchat:local');

    // The WebUI entries of the built-in file toolpack and of the loaded one, and its panel, over
    // the real gateway.
    const entries = await gateway.request('GET', '/api/projects/default/tool-ui');
    expect(entries.body.entries).toEqual([
      expect.objectContaining({ toolpack: 'file', id: 'file.activity', kind: 'panel' }),
      expect.objectContaining({ toolpack: 'review-tools', id: 'review.stats', kind: 'panel' }),
    ]);
    const panel = await gateway.request(
      'POST',
      '/api/projects/default/tool-ui/review-tools/review.stats',
      {},
    );
    expect(panel.status).toBe(200);
    // Suzumio's counters (issue 35) beside Switchboard's.
    expect(panel.body.metadata.stats).toEqual({
      agents: 1,
      toolpacks: 1,
      messageCount: 0,
      activationCount: 0,
      failedActivationCount: 0,
      runningActivationCount: 0,
    });
    expect((await gateway.request('GET', '/api/projects/other/tool-ui')).status).toBe(404);
  });

  it('refuses a config edit that adds a broken toolpack, naming the rule; a good one is written', async () => {
    gateway = await startTestGateway();
    const before = await readFile(gateway.configPath, 'utf8');
    const refused = await gateway.send(
      `/config patch ${JSON.stringify({ tools: { toolpacks: [{ path: BROKEN, id: 'controller-missing' }] } })}`,
    );
    expect(refused.body.replies[0].text).toMatch(/^Refused: the new config is invalid; nothing was written:/);
    expect(refused.body.replies[0].text).toContain('/tools/toolpacks: toolpack refused:');
    expect(refused.body.replies[0].text).toContain('[controller-missing]');
    expect(await readFile(gateway.configPath, 'utf8')).toBe(before);

    const accepted = await gateway.send(
      `/config patch ${JSON.stringify({ tools: { toolpacks: [{ path: REVIEW_TOOLS, id: 'review-tools' }] } })}`,
    );
    expect(accepted.body.replies[0].text).toMatch(/^Changed tools\. Restarting/);
  });
});
