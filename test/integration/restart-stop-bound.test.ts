import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import type { Tool } from '../../src/engine/tools/index.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { childRequests, createSubagentScript, toolResults } from '../fakes/subagent-script.js';
import { startTestGateway } from '../helpers/gateway.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * A restart whose stop cannot finish must not leave a process that is alive and serves nothing
 * (pm2 sees nothing wrong): the host gives the stop `gateway.drainTimeoutMs` and a grace, then
 * reports itself down (`onDown`: `switchboard start` exits 1 and the supervisor restarts it).
 */

const cleanups = cleanupAfterEach();

describe('a restart whose stop cannot finish', () => {
  it('ends in onDown when a sub-agent is stuck in a tool that ignores its abort', async () => {
    const script = createSubagentScript();
    const model = await startFakeOpenAIServer({ defaultStep: script.step });
    cleanups.push(() => model.close());
    let entered = false;
    // As a start check stuck on procfs was: the call never settles and does not listen for the abort.
    const stuck: Tool = {
      name: 'stuck_wait',
      description: 'Test tool: never returns and ignores the abort signal.',
      parameters: Type.Object({}),
      execute: () => {
        entered = true;
        return new Promise(() => {});
      },
    };
    const downs: unknown[] = [];
    const gateway = await startTestGateway({
      config: {
        models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-test' } },
        agents: { main: { model: 'fake' } },
        gateway: { drainTimeoutMs: 200 },
      },
      tools: [stuck],
      onDown: (error) => downs.push(error),
    });
    cleanups.push(() => gateway.dispose().catch(() => {}));
    script.child('wait for ever', { toolCalls: [{ name: 'stuck_wait', arguments: {} }] });
    script.parent(
      { toolCalls: [{ name: 'sessions_spawn', arguments: { task: 'wait for ever', label: 'waiter' } }] },
      (request) => ({ text: `spawned: ${toolResults(request).at(-1)?.status}` }),
    );
    const reply = await gateway.send('spawn a waiter');
    expect(reply.body.replies.at(-1).text).toBe('spawned: accepted');
    await expect.poll(() => childRequests(model.received, 'wait for ever').length > 0 && entered).toBe(true);

    void gateway.host.restart('test').catch(() => {});
    // 200 ms of drain and the grace: the process is reported down rather than left half-stopped.
    await expect.poll(() => downs.length, { timeout: 15_000 }).toBe(1);
    expect(String(downs[0])).toMatch(/the gateway did not stop within \d+(\.\d+)? s/);
  }, 30_000);
});
