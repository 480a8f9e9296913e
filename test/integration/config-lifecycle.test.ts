import { readFile, writeFile } from 'node:fs/promises';
import { createServer as createNetServer } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { cleanupAfterEach } from '../helpers/teardown.js';
import { openEvents } from '../helpers/webchat-events.js';

/**
 * Issue 28 §6, the config file across restarts: an address that is not this machine's is refused
 * before anything is written; a restart whose start fails puts the file back to the last config
 * that started (the failed one kept as a backup, named in the chat), so a cold start starts; the
 * last config that reached ready is kept whoever wrote the file, and a hand-made file that drops
 * models, agents, owners or channels is named in the asking chat.
 */

const cleanups = cleanupAfterEach();

async function gatewayFor(config: Record<string, unknown> = {}): Promise<TestGateway> {
  const gateway = await startTestGateway({ config });
  cleanups.push(() => gateway.dispose());
  return gateway;
}

async function reply(gateway: TestGateway, text: string): Promise<string> {
  const response = await gateway.send(text);
  expect(response.status).toBe(200);
  return response.body.replies[0].text;
}

async function webchatNotices(gateway: TestGateway) {
  const events = await openEvents(gateway, 'local');
  return () =>
    events.events.filter((event) => event.type === 'reply').map((event) => String(event.data.text));
}

const backupDir = (gateway: TestGateway) => path.join(gateway.dir, 'data', 'config-backups');

describe('http.host', () => {
  it('an address that is not this machine is refused by the edit, naming /http/host; nothing is written', async () => {
    const gateway = await gatewayFor();
    const before = await readFile(gateway.configPath, 'utf8');
    const answer = await reply(gateway, '/config patch {"http": {"host": "203.0.113.9"}}');
    expect(answer).toContain('/http/host');
    expect(answer).toContain('203.0.113.9 is not an address of this machine');
    expect(await readFile(gateway.configPath, 'utf8')).toBe(before);
    // The wildcard and this machine's own addresses pass.
    expect(await reply(gateway, '/config patch {"http": {"host": "0.0.0.0"}}')).toMatch(
      /^Changed http\.host/,
    );
  });
});

describe('a restart whose start fails after the check passed', () => {
  it('puts the file back to the last config that started, keeps the failed one and names it in the chat', async () => {
    const gateway = await gatewayFor();
    const started = await readFile(gateway.configPath, 'utf8');
    const squatter = createNetServer();
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => squatter.close(() => resolve())));
    const port = (squatter.address() as { port: number }).port;
    expect(await reply(gateway, `/config patch {"http": {"port": ${port}}}`)).toMatch(/^Changed http\.port/);
    await expect
      .poll(() => gateway.host.restarts === 1 && gateway.host.loaded !== undefined, { timeout: 15_000 })
      .toBe(true);
    // A new server (port 0 picks a new port): the notices are read from it.
    const notices = await webchatNotices(gateway);
    await expect
      .poll(notices, { timeout: 20_000 })
      .toContainEqual(
        expect.stringMatching(/^Restart failed: .*; running the last config that started again\./),
      );
    const failure = notices().find((text) => text.startsWith('Restart failed')) ?? '';
    const backup = /kept in (\S+\.bak)/.exec(failure)?.[1] ?? '';
    expect(failure).toContain(`${gateway.configPath} is back to the last config that started`);
    expect(path.dirname(backup)).toBe(backupDir(gateway));
    expect(
      JSON.parse(await readFile(backup, 'utf8').then((text) => text.replace(/^\/\/.*\n/, ''))).http.port,
    ).toBe(port);
    // The next cold start reads the config that started, not the one that cannot bind.
    expect(await readFile(gateway.configPath, 'utf8')).toBe(started);
    expect(gateway.host.loaded?.config.http.port).toBe(0);
  }, 40_000);
});

describe('the last config that reached ready', () => {
  it('is kept whoever wrote the file, and a hand-made file that drops models, agents and owners is named in the chat', async () => {
    const gateway = await gatewayFor({
      owners: ['webchat:local', 'slack:U1'],
      models: {
        fake: { provider: 'openai', model: 'fake-1', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-kept' },
      },
      agents: { main: { model: 'fake' }, helper: {} },
    });
    const ready = await readFile(gateway.configPath, 'utf8');
    const lastReady = path.join(backupDir(gateway), 'gateway.jsonc.last-ready');
    expect(await readFile(lastReady, 'utf8')).toBe(ready);
    // What an owner-approved shell command could do: the file rewritten by hand, gutted.
    const gutted = { stateDir: path.join(gateway.dir, 'data'), http: { port: 0, token: gateway.token } };
    await writeFile(gateway.configPath, JSON.stringify(gutted));
    expect(await reply(gateway, '/restart after the shell edit')).toMatch(/^Restarting in/);
    await expect
      .poll(() => gateway.host.restarts === 1 && gateway.host.loaded !== undefined, { timeout: 15_000 })
      .toBe(true);
    const notices = await webchatNotices(gateway);
    await expect
      .poll(notices, { timeout: 20_000 })
      .toContainEqual(expect.stringMatching(/^Gateway restarted \(restart\): after the shell edit/));
    const note = notices().find((text) => text.startsWith('Gateway restarted')) ?? '';
    expect(note).toContain('changed outside the config editor');
    expect(note).toContain('models fake');
    expect(note).toContain('agents helper');
    expect(note).toContain('owners slack:U1');
    const kept = /kept in (\S+\.bak)/.exec(note)?.[1] ?? '';
    expect(path.dirname(kept)).toBe(backupDir(gateway));
    expect(await readFile(kept, 'utf8')).toBe(ready);
    // The one that reached ready now is the last-ready one.
    expect(await readFile(lastReady, 'utf8')).toBe(JSON.stringify(gutted));
  }, 40_000);
});
