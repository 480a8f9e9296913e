import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import { createCompletionRecords } from '../../src/extensions/toolpacks/index.js';
import { createStore } from '../../src/records/store/index.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { toolResults } from '../fakes/subagent-script.js';
import { startTestGateway } from '../helpers/gateway.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * The core toolpack as Suzumio has it, over a running gateway: `core` carries `completion.submit`
 * and the file tools (a `file` entry beside it registers nothing twice), and `completion.submit`
 * stores the report in the store (namespace `completions`), posts it to the chat and ends the run;
 * a `path` that is no file is refused by name and the run goes on.
 */

const cleanups = cleanupAfterEach();
const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });
const CORE_TOOLS = [
  'messages.send',
  'coordination.wait_for_signal',
  'completion.submit',
  'file.read',
  'file.write',
  'file.patch',
];

async function coreGateway(toolpacks: string[]) {
  const model = await startFakeOpenAIServer();
  cleanups.push(() => model.close());
  const gateway = await startTestGateway({
    config: {
      tools: { toolpacks },
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-test-core' } },
      agents: { pm: { model: 'fake' } },
      defaultAgent: 'pm',
    },
  });
  cleanups.push(() => gateway.dispose());
  // Providers spell `.` as `__` on the wire.
  const toolsOffered = (index: number) =>
    (model.requests[index].tools ?? []).map((tool: any) => String(tool.function.name).replaceAll('__', '.'));
  return { model, gateway, toolsOffered };
}

describe('the core toolpack', () => {
  it.each([
    { toolpacks: ['core'], builtins: ['core'] },
    { toolpacks: ['core', 'file'], builtins: ['core', 'file'] },
    { toolpacks: ['file', 'core'], builtins: ['file', 'core'] },
  ])('$toolpacks: carries completion.submit and file.*, each once', async ({ toolpacks, builtins }) => {
    const { model, gateway, toolsOffered } = await coreGateway(toolpacks);
    const report = await gateway.request('GET', '/api/toolpacks');
    expect(report.body.builtins).toEqual(builtins);
    expect(report.body.problems).toEqual([]);
    model.push(
      { toolCalls: [{ name: 'file.write', arguments: { path: 'notes.md', content: 'from core' } }] },
      { toolCalls: [{ name: 'file.read', arguments: { path: '/workspace/notes.md' } }] },
      { text: 'done' },
    );
    expect((await gateway.send('write and read')).status).toBe(200);
    const offered = toolsOffered(0);
    for (const name of CORE_TOOLS) expect(offered.filter((tool: string) => tool === name)).toEqual([name]);
    expect(JSON.stringify(model.requests[2].messages)).toContain('from core');
  });

  it('completion.submit: a bad path is refused and the run goes on; the report is stored, posted, and ends the run', async () => {
    const { model, gateway } = await coreGateway(['core']);
    const results: unknown[] = [];
    model.push(
      { toolCalls: [{ name: 'completion.submit', arguments: { report: 'first try', path: 'missing.md' } }] },
      (request) => {
        results.push(toolResults(request).at(-1));
        return { toolCalls: [{ name: 'file.write', arguments: { path: 'report.md', content: '# Report' } }] };
      },
      {
        toolCalls: [
          { name: 'completion.submit', arguments: { report: '## Done\n\nAll green.', path: 'report.md' } },
        ],
      },
    );
    const response = await gateway.send('finish the project');
    expect(response.status).toBe(200);
    expect(results[0]).toMatchObject({ ok: false, reason: expect.stringMatching(/^path: .*missing\.md/) });
    // The accepted submission ended the run: three model calls, its report posted as the reply.
    expect(model.requests).toHaveLength(3);
    expect(response.body.replies.map((reply: any) => reply.text ?? reply)).toEqual([
      'Final report from pm (/workspace/report.md):\n\n## Done\n\nAll green.',
    ]);
    await gateway.stop();
    const store = await createStore({ url: undefined, stateDir: path.join(gateway.dir, 'data'), logger });
    try {
      const latest = await createCompletionRecords({ store }).latest();
      expect(latest).toMatchObject({
        id: expect.stringMatching(/^cmp_/),
        agentId: 'pm',
        report: '## Done\n\nAll green.',
        path: '/workspace/report.md',
      });
      expect(await createCompletionRecords({ store }).list()).toHaveLength(1);
    } finally {
      await store.close();
    }
  });
});
