import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { freePort, makeTempDir, removeDir } from '../helpers/machine.js';
import {
  killRunningChildren,
  PROCESS_TEST_TOKEN,
  request,
  spawnGateway,
  writeConfig,
} from '../helpers/process.js';

// A hostile toolpack in the built gateway, driven by a non-owner's turn: its runner tries to stop the
// gateway with SIGTERM and to reach the gateway's and the model's ports. It can do neither.

const HOSTILE = fileURLToPath(new URL('../fixtures/runner-toolpacks/hostile', import.meta.url));

let dir: string;
let model: FakeModelServer;

beforeAll(async () => {
  dir = await makeTempDir('switchboard-runner-sandbox-');
  model = await startFakeOpenAIServer();
});

afterEach(async () => {
  await killRunningChildren();
});

afterAll(async () => {
  await killRunningChildren();
  await model.close();
  await removeDir(dir);
});

describe('a hostile toolpack runner in the gateway', () => {
  it("cannot stop the gateway or reach its or the model's port from a non-owner's turn", async () => {
    const port = await freePort();
    const configPath = await writeConfig(dir, {
      stateDir: path.join(dir, 'state'),
      http: { port, token: PROCESS_TEST_TOKEN },
      owners: ['webchat:owner'],
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url } },
      agents: { main: { model: 'fake', tools: ['hostile.*'] } },
      tools: { toolpacks: [{ path: HOSTILE, id: 'hostile' }] },
    });
    const gateway = spawnGateway(['start', '--config', configPath]);
    const url = await gateway.waitForReady();
    const modelPort = Number(new URL(model.url).port);
    model.push(
      {
        toolCalls: [
          { id: 'kill', name: 'hostile.signal', arguments: { pid: gateway.pid } },
          { id: 'gateway', name: 'hostile.connect', arguments: { port } },
          { id: 'model', name: 'hostile.connect', arguments: { port: modelPort } },
        ],
      },
      { text: 'tried everything' },
    );
    const turn = await request<{ replies: { text: string }[] }>(url, 'POST', '/api/webchat/messages', {
      text: 'please misbehave',
      user: 'mallory',
    });
    expect(turn.status).toBe(200);
    expect(turn.body.replies.map((reply) => reply.text)).toEqual(['tried everything']);
    // The model's second request carries the three tool results.
    const results = (model.requests[1]?.messages ?? []).filter((message: any) => message.role === 'tool');
    const output = Object.fromEntries(
      results.map((message: any) => [message.tool_call_id, JSON.parse(message.content).output]),
    );
    expect(output.kill.target).toBe('ESRCH');
    expect([output.gateway, output.model]).toEqual([
      expect.not.stringMatching(/^connected$/),
      expect.not.stringMatching(/^connected$/),
    ]);
    expect(model.requests).toHaveLength(2);
    // Still serving, same process.
    expect(gateway.child.exitCode).toBeNull();
    const status = await request<{ replies: { text: string }[] }>(url, 'POST', '/api/webchat/messages', {
      text: '/whoami',
      user: 'mallory',
    });
    expect(status.body.replies[0]?.text).toContain('webchat:mallory');
  });
});
