import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/base/config/index.js';
import { createLogger } from '../../src/base/logging/index.js';
import { type AgentMessage, communicationPolicy } from '../../src/base/messages/index.js';
import { createToolRegistry } from '../../src/engine/tools/index.js';
import {
  BUILTIN_TOOLPACK_TOOLS,
  createCompletionRecords,
  createCoreTools,
} from '../../src/extensions/toolpacks/index.js';
import { createStore } from '../../src/records/store/index.js';
import { testToolContext } from '../helpers/tool-context.js';

/** The core toolpack's tools: Suzumio's six, registrable, every parameter described, its boundaries. */

const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });

describe('createCoreTools', () => {
  it('makes the tools builtin-names reserves for core, each parameter described', async () => {
    const checked = validateConfig({ agents: { main: {} } });
    if (!checked.ok) throw new Error(JSON.stringify(checked.error));
    const store = await createStore({ url: 'memory://', stateDir: '.', logger });
    const tools = createCoreTools({
      config: checked.value,
      configPath: 'gateway.jsonc',
      stateDir: '.',
      send: async () => ({ ok: true }),
      routes: {},
      policy: communicationPolicy(checked.value),
      completions: createCompletionRecords({ store }),
    });
    expect(tools.map((tool) => tool.name)).toEqual([...BUILTIN_TOOLPACK_TOOLS.core]);
    const registry = createToolRegistry();
    for (const tool of tools) registry.register(tool, 'toolpack core');
    for (const tool of tools) {
      const properties = (tool.parameters as { properties?: Record<string, { description?: string }> })
        .properties;
      for (const [key, schema] of Object.entries(properties ?? {})) {
        expect(schema.description, `${tool.name}.${key}`).toBeTruthy();
      }
    }
    const send = tools.find((tool) => tool.name === 'messages.send');
    expect((send?.parameters as any)?.properties.priority.default).toBe('P3');
    expect(tools.filter((tool) => tool.boundary).map((tool) => tool.name)).toEqual([
      'coordination.wait_for_signal',
      'completion.submit',
    ]);
    await store.close();
  });
});

describe("coordination.wait_for_signal with Suzumio's notifyPm and pm", () => {
  it('tells the coordinator by default (not itself), not with notifyPm false, another agent with pm', async () => {
    const checked = validateConfig({
      agents: { main: {}, pm: {}, lead: {} },
      communication: { coordinatorAgent: 'pm' },
    });
    if (!checked.ok) throw new Error(JSON.stringify(checked.error));
    const store = await createStore({ url: 'memory://', stateDir: '.', logger });
    const sent: AgentMessage[] = [];
    const tools = createCoreTools({
      config: checked.value,
      configPath: 'gateway.jsonc',
      stateDir: '.',
      send: async (message) => {
        sent.push(message);
        return { ok: true };
      },
      routes: {},
      policy: communicationPolicy(checked.value),
      completions: createCompletionRecords({ store }),
    });
    const registry = createToolRegistry();
    for (const tool of tools) registry.register(tool, 'toolpack core');
    const wait = async (args: unknown, agentId = 'main') =>
      JSON.parse(
        (
          await registry.execute(
            'coordination.wait_for_signal',
            JSON.stringify(args),
            { allows: () => true, isOwner: true },
            testToolContext(logger, { agentId }),
          )
        ).content,
      );
    const told = await wait({ reason: 'the review' });
    expect(told).toMatchObject({ ok: true, notifiedAgent: 'pm', messageId: sent[0]?.id });
    expect(sent[0]).toMatchObject({
      sender: 'main',
      recipient: 'pm',
      priority: 'P1',
      body: 'Waiting for future signals.\n\nReason: the review',
    });
    expect(await wait({ reason: 'again', notifyPm: false })).not.toHaveProperty('notifiedAgent');
    expect(await wait({}, 'pm')).not.toHaveProperty('notifiedAgent');
    expect(await wait({ pm: 'lead' })).toMatchObject({ notifiedAgent: 'lead' });
    expect(await wait({ pm: 'nobody' })).not.toHaveProperty('notifiedAgent');
    expect(sent.map((message) => message.recipient)).toEqual(['pm', 'lead']);
    await store.close();
  });
});

describe('completion.submit writes final-report.md (issue 35)', () => {
  it("writes the report to the agent's workspace and reports its path; a given path is kept", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'completion-'));
    try {
      const checked = validateConfig({ agents: { main: {} } });
      if (!checked.ok) throw new Error(JSON.stringify(checked.error));
      const store = await createStore({ url: 'memory://', stateDir: dir, logger });
      const records = createCompletionRecords({ store });
      const tools = createCoreTools({
        config: checked.value,
        configPath: path.join(dir, 'gateway.jsonc'),
        stateDir: dir,
        send: async () => ({ ok: true }),
        routes: {},
        policy: communicationPolicy(checked.value),
        completions: records,
      });
      const submit = tools.find((tool) => tool.name === 'completion.submit');
      const answer: any = await submit?.execute({ report: '# Done\n\nAll of it.' }, testToolContext(logger));
      expect(answer).toMatchObject({ ok: true, path: '/workspace/final-report.md' });
      expect(await readFile(path.join(dir, 'workspaces/main/final-report.md'), 'utf8')).toBe(
        '# Done\n\nAll of it.\n',
      );
      expect((await records.latest())?.path).toBe('/workspace/final-report.md');
      await store.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
