import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { freePort, makeTempDir, removeDir } from '../helpers/machine.js';
import {
  childEnvironment,
  killRunningChildren,
  PROCESS_TEST_TOKEN,
  REPO_ROOT,
  request,
  runCommand,
  spawnGateway,
  writeConfig,
} from '../helpers/process.js';

// A hostile toolpack in the built gateway, driven by a non-owner's turn: its runner tries to stop the
// gateway with SIGTERM, to reach the gateway's and the model's ports, pm2's RPC socket (a real pm2
// daemon with its PM2_HOME under the gateway's $HOME, as the deployment of docs/operations.md has it), a socket
// listening under $HOME, and to read the gateway's config file. It can do none of it.

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
  it("cannot stop the gateway, reach its or the model's port, pm2's or another Unix socket under $HOME, or read the config, from a non-owner's turn", async () => {
    // $HOME under the real home, outside /tmp: where pm2 and other daemons keep their sockets.
    const home = await mkdtemp(path.join(homedir(), '.runner-sandbox-e2e-'));
    const pm2Env = childEnvironment({ HOME: home, PM2_HOME: path.join(home, '.pm2') });
    const pm2 = (...args: string[]) =>
      runCommand(process.execPath, [path.join(REPO_ROOT, 'node_modules/pm2/bin/pm2'), ...args], {
        env: pm2Env,
      });
    const daemon = net.createServer((socket) => socket.destroy());
    try {
      await pm2('ping');
      const rpcSocket = path.join(home, '.pm2', 'rpc.sock');
      expect(existsSync(rpcSocket)).toBe(true);
      const homeSocket = path.join(home, 'daemon.sock');
      await new Promise<void>((resolve) => daemon.listen(homeSocket, resolve));
      await misbehave({ HOME: home }, [rpcSocket, homeSocket]);
    } finally {
      await new Promise<void>((resolve) => daemon.close(() => resolve()));
      await pm2('kill');
      await rm(home, { recursive: true, force: true });
    }
  });
});

/** Mallory's turn: the model calls every hostile tool; the results come back in its second request. */
async function misbehave(env: Record<string, string>, sockets: string[]) {
  const port = await freePort();
  const configPath = await writeConfig(dir, {
    stateDir: path.join(dir, 'state'),
    http: { port, token: PROCESS_TEST_TOKEN },
    owners: ['webchat:owner'],
    models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url } },
    agents: { main: { model: 'fake', tools: ['hostile.*'] } },
    tools: { toolpacks: [{ path: HOSTILE, id: 'hostile' }] },
  });
  const gateway = spawnGateway(['start', '--config', configPath], { env: childEnvironment(env) });
  const url = await gateway.waitForReady();
  const modelPort = Number(new URL(model.url).port);
  model.push(
    {
      toolCalls: [
        { id: 'kill', name: 'hostile.signal', arguments: { pid: gateway.pid } },
        { id: 'gateway', name: 'hostile.connect', arguments: { port } },
        { id: 'model', name: 'hostile.connect', arguments: { port: modelPort } },
        ...sockets.map((socket, index) => ({
          id: `socket-${index}`,
          name: 'hostile.connectPath',
          arguments: { path: socket },
        })),
        { id: 'config', name: 'hostile.read', arguments: { path: configPath } },
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
  // The model's second request carries every tool's result.
  const results = (model.requests[1]?.messages ?? []).filter((message: any) => message.role === 'tool');
  const output = Object.fromEntries(
    results.map((message: any) => [message.tool_call_id, JSON.parse(message.content).output]),
  );
  expect(output.kill.target).toBe('ESRCH');
  expect([output.gateway, output.model]).toEqual([
    expect.not.stringMatching(/^connected$/),
    expect.not.stringMatching(/^connected$/),
  ]);
  expect(sockets.map((_, index) => output[`socket-${index}`])).toEqual(sockets.map(() => 'ENOENT'));
  expect(output.config).not.toContain(PROCESS_TEST_TOKEN);
  expect(model.requests).toHaveLength(2);
  // Still serving, same process.
  expect(gateway.child.exitCode).toBeNull();
  const status = await request<{ replies: { text: string }[] }>(url, 'POST', '/api/webchat/messages', {
    text: '/whoami',
    user: 'mallory',
  });
  expect(status.body.replies[0]?.text).toContain('webchat:mallory');
}
