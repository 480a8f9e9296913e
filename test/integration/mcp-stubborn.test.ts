import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';
import {
  mcpServersReady,
  STUBBORN_LONG_TOOL,
  STUBBORN_SERVER,
  startHttpMcpServer,
} from '../helpers/mcp-servers.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * MCP servers that misbehave, over stdio (test/fixtures/mcp/stubborn-server.mjs): one that never
 * answers `initialize`, an answer over the size limit, a tool name longer than the APIs take.
 */

const cleanups = cleanupAfterEach();

const WIRE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

async function setup(
  mcp: Record<string, unknown>,
): Promise<{ gateway: TestGateway; model: FakeModelServer }> {
  const model = await startFakeOpenAIServer();
  cleanups.push(() => model.close());
  const gateway = await startTestGateway({
    config: {
      models: {
        fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-test-key-123' },
      },
      agents: { main: { model: 'fake' } },
      mcp: { servers: mcp },
    },
  });
  cleanups.push(() => gateway.dispose());
  return { gateway, model };
}

async function mcpStatus(gateway: TestGateway, name: string): Promise<any> {
  const response = await gateway.request('GET', '/api/status');
  return response.body.mcpServers?.find((server: any) => server.name === name);
}

async function toolResults(gateway: TestGateway, key: string): Promise<any[]> {
  const response = await gateway.request('GET', `/api/sessions/${encodeURIComponent(key)}/transcript`);
  return response.body.entries.filter((entry: any) => entry.role === 'tool');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const wireNames = (body: any): string[] => (body.tools ?? []).map((tool: any) => tool.function.name);

const stubborn = { command: process.execPath, args: [STUBBORN_SERVER] };

describe('misbehaving MCP servers', () => {
  it('serves at once while a server never answers initialize; a server that is ready adds its tools', async () => {
    const dir = await makeTempDir('switchboard-mcp-silent-');
    cleanups.push(() => removeDir(dir));
    const pidFile = path.join(dir, 'silent.pid');
    // An hour to answer: a start that waited for this server's first attempt would not return in this test.
    const { gateway, model } = await setup({
      silent: {
        ...stubborn,
        args: [STUBBORN_SERVER, '--silent', '--pid-file', pidFile],
        timeoutMs: 3_600_000,
      },
      stubborn,
    });
    expect((await gateway.request('GET', '/healthz')).status).toBe(200);
    expect(await mcpStatus(gateway, 'silent')).toMatchObject({ state: 'connecting' });
    const readiness = await gateway.request('GET', '/readyz');
    expect(readiness.body.reasons).toContainEqual({ component: 'mcp:silent', state: 'connecting' });
    await mcpServersReady(gateway, ['stubborn']);
    model.push({ toolCalls: [{ name: 'mcp.stubborn.echo', arguments: { text: 'hi' } }] });
    model.push({ text: 'Done.' });
    const response = await gateway.send('echo');
    expect(wireNames(model.requests[0])).toContain('mcp__stubborn__echo');
    const [result] = await toolResults(gateway, response.body.sessionKey);
    expect(result.text).toContain('echo: hi');
    // A stop while it still connects ends it, though it ignores the end of its input.
    const pid = Number(await readFile(pidFile, 'utf8'));
    expect(alive(pid)).toBe(true);
    await gateway.stop();
    await expect.poll(() => alive(pid)).toBe(false);
  }, 30_000);

  it('names an answer over the size limit as such, and the server comes back', async () => {
    const { gateway, model } = await setup({ stubborn });
    await mcpServersReady(gateway, ['stubborn']);
    model.push({ toolCalls: [{ name: 'mcp.stubborn.big', arguments: { bytes: 11 * 1024 * 1024 } }] });
    model.push({ text: 'Too big.' });
    const response = await gateway.send('big answer please');
    const [result] = await toolResults(gateway, response.body.sessionKey);
    expect(JSON.parse(result.text).reason).toBe(
      'answer over 10 MB from MCP server "stubborn": the answer was dropped and the server is reconnected.',
    );
    expect(gateway.logLines.join('\n')).toContain('answer over 10 MB from MCP server');
    await expect
      .poll(async () => (await mcpStatus(gateway, 'stubborn'))?.state, { timeout: 20_000 })
      .toBe('ready');
    model.push({ toolCalls: [{ name: 'mcp.stubborn.echo', arguments: { text: 'again' } }] });
    model.push({ text: 'Done.' });
    const again = await gateway.send('echo again', undefined, 'second');
    const [back] = await toolResults(gateway, again.body.sessionKey);
    expect(back.text).toContain('echo: again');
  }, 60_000);

  it('refuses an HTTP answer over the size limit, naming it; the server stays connected', async () => {
    const server = await startHttpMcpServer();
    cleanups.push(() => server.close());
    const { gateway, model } = await setup({ remote: { url: server.url } });
    await mcpServersReady(gateway, ['remote']);
    model.push({ toolCalls: [{ name: 'mcp.remote.big', arguments: { bytes: 11 * 1024 * 1024 } }] });
    model.push({ toolCalls: [{ name: 'mcp.remote.shout', arguments: { text: 'still here' } }] });
    model.push({ text: 'Done.' });
    const response = await gateway.send('big answer please');
    const [big, shout] = await toolResults(gateway, response.body.sessionKey);
    expect(JSON.parse(big.text).reason).toContain('answer over 10 MB from MCP server "remote"');
    expect(shout.text).toContain('STILL HERE');
    expect((await mcpStatus(gateway, 'remote')).state).toBe('ready');
  }, 60_000);

  it('offers every tool under a name the APIs take (at most 64 characters) and calls the long one', async () => {
    const { gateway, model } = await setup({ stubborn });
    await mcpServersReady(gateway, ['stubborn']);
    const registryName = `mcp.stubborn.${STUBBORN_LONG_TOOL}`;
    model.push({ toolCalls: [{ name: registryName, arguments: { id: '7' } }] });
    model.push({ text: 'Done.' });
    const response = await gateway.send('look it up');
    const names = wireNames(model.requests[0]);
    expect(names.filter((name) => !WIRE_NAME.test(name))).toEqual([]);
    expect(new Set(names).size).toBe(names.length);
    const [result] = await toolResults(gateway, response.body.sessionKey);
    expect(result).toMatchObject({ toolName: registryName });
    expect(result.text).toContain('record 7');
  });
});
