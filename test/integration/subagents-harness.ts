import { expect } from 'vitest';
import type { Tool } from '../../src/engine/tools/index.js';
import type { FakeModelServer, FakeRequest } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import {
  ANNOUNCEMENT_PREFIX,
  childRequests,
  createSubagentScript,
  parseAnnouncement,
  toolResults,
} from '../fakes/subagent-script.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * What the sub-agent integration tests share: a gateway whose one fake model answers the web chat
 * session and its sub-agents by script (see subagent-script.ts), and ways to drive the parent's
 * tools and read announcements. Importing it registers the cleanup after each test.
 */

export const PARENT = 'agent:main:webchat:direct:local';
const cleanups = cleanupAfterEach();

export interface Harness {
  gateway: TestGateway;
  model: FakeModelServer;
  script: ReturnType<typeof createSubagentScript>;
  /** Has the parent model call these tools in one round; resolves with their results. */
  useTools(calls: { name: string; arguments: Record<string, unknown> }[], user?: string): Promise<any[]>;
  useTool(name: string, args: Record<string, unknown>, user?: string): Promise<any>;
  transcript(key: string): Promise<any[]>;
  /** The announcements in a session's transcript, parsed, oldest first. */
  announcements(key?: string): Promise<any[]>;
}

export async function setup(
  options: { config?: Record<string, unknown>; tools?: Tool[] } = {},
): Promise<Harness> {
  const script = createSubagentScript();
  const model = await startFakeOpenAIServer({ defaultStep: script.step });
  cleanups.push(() => model.close());
  const gateway = await startTestGateway({
    config: {
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-test' } },
      agents: { main: { model: 'fake' } },
      gateway: { drainTimeoutMs: 200 },
      ...options.config,
    },
    ...(options.tools ? { tools: options.tools } : {}),
  });
  cleanups.push(() => gateway.dispose());

  async function useTools(calls: { name: string; arguments: Record<string, unknown> }[], user = 'local') {
    let results: any[] | undefined;
    script.parent({ toolCalls: calls }, (request) => {
      results = toolResults(request).slice(-calls.length);
      return { text: 'tools used' };
    });
    const response = await gateway.send(`please use ${calls.map((call) => call.name).join(', ')}`, user);
    expect(response.status).toBe(200);
    expect(results).toBeDefined();
    return results as any[];
  }
  async function transcript(key: string): Promise<any[]> {
    const response = await gateway.request('GET', `/api/sessions/${encodeURIComponent(key)}/transcript`);
    expect(response.status).toBe(200);
    return response.body.entries;
  }
  return {
    gateway,
    model,
    script,
    useTools,
    useTool: async (name, args, user) => (await useTools([{ name, arguments: args }], user))[0],
    transcript,
    async announcements(key = PARENT) {
      return (await transcript(key))
        .filter((entry) => entry.role === 'system' && entry.text.startsWith(ANNOUNCEMENT_PREFIX))
        .map((entry) => parseAnnouncement(entry.text));
    },
  };
}

export const spawn = (task: string, label?: string, extra: Record<string, unknown> = {}) => ({
  name: 'sessions_spawn',
  arguments: { task, ...(label === undefined ? {} : { label }), ...extra },
});

/** Waits until the fake has seen `count` model requests from the child with this task. */
export async function childAsked(model: FakeModelServer, match: string, count = 1): Promise<FakeRequest> {
  await expect
    .poll(() => childRequests(model.received, match).length, { timeout: 10_000 })
    .toBeGreaterThanOrEqual(count);
  return childRequests(model.received, match)[count - 1] as FakeRequest;
}
