import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { access, readFile, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/base/config/index.js';
import { createLogger } from '../../src/base/logging/index.js';
import { checkStartable } from '../../src/host/index.js';
import type { FakeRequest } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { startFakeSlack } from '../fakes/fake-slack.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';
import { cleanupAfterEach } from '../helpers/teardown.js';
import { openEvents } from '../helpers/webchat-events.js';

/**
 * One check of "can this config start" (checkStartable): the config editor refuses what a start
 * would fail on, and the host refuses a restart whose config cannot start while the old gateway
 * keeps serving; the chat that asked is told why.
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

/** Replies posted to the local web chat user (notices are held until a page subscribes). */
async function webchatNotices(gateway: TestGateway) {
  const events = await openEvents(gateway, 'local');
  return () =>
    events.events.filter((event) => event.type === 'reply').map((event) => String(event.data.text));
}

/** Three configs a start fails on, each with the JSON path the refusal names. */
async function unstartable(dir: string) {
  // A regular file where a directory would have to be: nothing below it can be created.
  const blocker = path.join(dir, 'not-a-directory');
  await writeFile(blocker, 'a file\n');
  return [
    {
      name: 'a missing agent prompt file',
      patch: { agents: { main: { systemPromptFile: 'prompts/missing.md' } } },
      path: '/agents/main/systemPromptFile',
    },
    {
      name: 'an unreachable Redis store',
      patch: { store: { url: 'redis://127.0.0.1:1' } },
      path: '/store/url',
    },
    {
      name: 'a state dir under a regular file',
      patch: { stateDir: path.join(blocker, 'data') },
      path: '/stateDir',
    },
  ];
}

describe('the config editor refuses a config that cannot start', () => {
  it('/config patch names the path for a prompt file, a store and a state dir; the file stays and nothing restarts', async () => {
    const gateway = await gatewayFor();
    const before = await readFile(gateway.configPath, 'utf8');
    for (const bad of await unstartable(gateway.dir)) {
      const answer = await reply(gateway, `/config patch ${JSON.stringify(bad.patch)}`);
      expect(answer, bad.name).toMatch(/^Refused: the new config is invalid; nothing was written/);
      expect(answer, bad.name).toContain(`${bad.path}: `);
    }
    expect(await readFile(gateway.configPath, 'utf8')).toBe(before);
    // Well past the 2 s restart delay a written edit would have scheduled.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(gateway.host.restarts).toBe(0);
  }, 30_000);
});

describe('a restart whose config cannot start', () => {
  it('keeps the old gateway serving and tells the chat that asked, once', async () => {
    const gateway = await gatewayFor();
    const urlBefore = gateway.url;
    for (const bad of await unstartable(gateway.dir)) {
      await writeFile(gateway.configPath, JSON.stringify({ ...baseConfig(gateway), ...bad.patch }));
      const notices = await webchatNotices(gateway);
      const answer = await reply(gateway, '/restart after a hand edit');
      expect(answer).toMatch(/^Restarting in/);
      await expect
        .poll(notices, { timeout: 15_000 })
        .toContainEqual(expect.stringMatching(/^Restart refused: .*; still running the previous config\.$/));
      const refusals = notices().filter((text) => text.startsWith('Restart refused'));
      expect(refusals, bad.name).toHaveLength(1);
      expect(refusals[0], bad.name).toContain(bad.path);
      expect(gateway.url).toBe(urlBefore);
      expect(await reply(gateway, '/whoami')).toBe('You are webchat:local (owner).');
      expect(gateway.host.restarts).toBe(0);
      // Restore the config that starts, for the next case.
      await writeFile(gateway.configPath, JSON.stringify(baseConfig(gateway)));
    }
    // The refused restarts promised no note: a later good restart brings only its own.
    await reply(gateway, '/restart the real one');
    await expect
      .poll(() => gateway.host.restarts === 1 && gateway.host.loaded !== undefined, { timeout: 15_000 })
      .toBe(true);
    // A new server (port 0 picks a new port): the note waits for the page to come back.
    const notices = await webchatNotices(gateway);
    await expect.poll(notices, { timeout: 15_000 }).toContain('Gateway restarted (restart): the real one');
    expect(notices().filter((text) => text.startsWith('Gateway restarted'))).toEqual([
      'Gateway restarted (restart): the real one',
    ]);
    expect(notices().filter((text) => text.startsWith('Restart refused'))).toEqual([]);
  }, 60_000);

  it('host.restart() with a hand-edited unreachable store keeps answering and logs the refusal', async () => {
    const gateway = await gatewayFor();
    await writeFile(
      gateway.configPath,
      JSON.stringify({ ...baseConfig(gateway), store: { url: 'redis://127.0.0.1:1' } }),
    );
    await gateway.restart();
    expect(gateway.host.restarts).toBe(0);
    expect(await reply(gateway, '/whoami')).toBe('You are webchat:local (owner).');
    const refused = gateway.logLines.find((line) => line.includes('Restart refused'));
    expect(refused).toContain('/store/url');
    expect(refused).toContain('still running the previous config');
  });

  it('goes back to the last config that started when the start fails after the check passed', async () => {
    const gateway = await gatewayFor();
    // The check does not bind the port (serving is the start's job): taken now, the start fails.
    const squatter = createNetServer();
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => squatter.close(() => resolve())));
    const port = (squatter.address() as { port: number }).port;
    await writeFile(
      gateway.configPath,
      JSON.stringify({ ...baseConfig(gateway), http: { port, token: gateway.token } }),
    );
    expect(await reply(gateway, '/restart onto a taken port')).toMatch(/^Restarting in/);
    await expect
      .poll(() => gateway.host.restarts === 1 && gateway.host.loaded !== undefined, { timeout: 15_000 })
      .toBe(true);
    const notices = await webchatNotices(gateway);
    await expect
      .poll(notices, { timeout: 15_000 })
      .toContainEqual(
        expect.stringMatching(
          /^Restart failed: .*; running the last config that started again\. .* is back to the last config that started/,
        ),
      );
    expect(await reply(gateway, '/whoami')).toBe('You are webchat:local (owner).');
    expect(gateway.host.loaded?.config.http.port).toBe(0);
    expect(notices().filter((text) => text.startsWith('Gateway restarted'))).toEqual([]);
  }, 30_000);
});

describe('credential checks and addresses', () => {
  it('a tool-made edit of channels.slack.apiUrl sends nothing to the new address', async () => {
    const slack = await startFakeSlack({ echoPosts: true });
    cleanups.push(() => slack.close());
    const model = await startFakeOpenAIServer();
    cleanups.push(() => model.close());
    let requests = 0;
    const elsewhere: Server = createServer((_request, response) => {
      requests += 1;
      response.end('{"ok":true}');
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => elsewhere.close(() => resolve())));
    const elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as { port: number }).port}/api/`;
    const gateway = await gatewayFor({
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-start-check' } },
      agents: { main: { model: 'fake' } },
      channels: {
        slack: { botToken: 'xoxb-start-check', appToken: 'xapp-start-check', apiUrl: slack.apiUrl },
      },
      // What the edit sends is under test, not its approval.
      approvals: { tools: { gateway: 'auto' } },
    });
    const before = await readFile(gateway.configPath, 'utf8');
    model.push({ toolCalls: [{ name: 'gateway', arguments: { action: 'config.get' } }] });
    model.push((request: FakeRequest) => {
      const tool = request.body.messages.filter((message: any) => message.role === 'tool').at(-1);
      return {
        toolCalls: [
          {
            name: 'gateway',
            arguments: {
              action: 'config.patch',
              raw: JSON.stringify({ channels: { slack: { apiUrl: elsewhereUrl } } }),
              baseHash: JSON.parse(tool.content).result.hash,
            },
          },
        ],
      };
    });
    model.push({ text: 'done' });
    await gateway.send('move slack elsewhere');
    const result = JSON.parse(
      (model.received[2] as FakeRequest).body.messages
        .filter((message: any) => message.role === 'tool')
        .at(-1).content,
    );
    expect(result.ok).toBe(false);
    expect(requests).toBe(0);
    expect(await readFile(gateway.configPath, 'utf8')).toBe(before);
  }, 30_000);

  it('the check itself tries a new address only for an owner: never for via tool, for a typed command it does', async () => {
    let requests = 0;
    const elsewhere: Server = createServer((_request, response) => {
      requests += 1;
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end('{"ok":false,"error":"invalid_auth"}');
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => elsewhere.close(() => resolve())));
    const port = (elsewhere.address() as { port: number }).port;
    const stateDir = await makeTempDir('switchboard-start-check-');
    cleanups.push(() => removeDir(stateDir));
    const slack = (apiUrl: string, botToken = 'xoxb-1') => ({
      stateDir,
      store: { url: 'memory://' },
      channels: { slack: { botToken, appToken: 'xapp-1', apiUrl } },
    });
    const parse = (value: object) => parseConfigText(JSON.stringify(value), undefined, {});
    const running = { config: parse(slack('http://127.0.0.1:9/api/')), toolpackProblems: [] };
    const next = parse(slack(`http://127.0.0.1:${port}/api/`));
    const { logger } = createLogger({ level: 'silent' });

    const byTool = await checkStartable(next, undefined, { running, via: 'tool', logger });
    expect(byTool.issues).toEqual([
      expect.objectContaining({
        path: '/channels/slack/apiUrl',
        message: expect.stringMatching(/^not tried: /),
      }),
    ]);
    expect(requests).toBe(0);
    // A new token at the address the running config uses is tried there (nothing new learns it).
    const sameAddress = parse(slack('http://127.0.0.1:9/api/', 'xoxb-2'));
    const tokenByTool = await checkStartable(sameAddress, undefined, { running, via: 'tool', logger });
    expect(tokenByTool.issues.map((issue) => issue.path)).toEqual(['/channels/slack']);
    expect(requests).toBe(0);

    const byOwner = await checkStartable(next, undefined, { running, via: 'command', logger });
    expect(byOwner.issues.map((issue) => issue.path)).toEqual(['/channels/slack']);
    expect(requests).toBeGreaterThan(0);
  });
});

/** The test gateway's own config (as startTestGateway wrote it), to restore after a bad edit. */
function baseConfig(gateway: TestGateway): Record<string, unknown> {
  return {
    stateDir: path.join(gateway.dir, 'data'),
    http: { port: 0, token: gateway.token },
  };
}

describe('the start check ends, whatever the machine does', () => {
  const { logger } = createLogger({ level: 'silent' });
  const parse = (value: object) => parseConfigText(JSON.stringify(value), undefined, {});

  it('refuses a state dir, a log file or a SQLite file under /proc, /sys or /dev, also through a symlink, naming the path', async () => {
    const dir = await makeTempDir('switchboard-start-check-');
    cleanups.push(() => removeDir(dir));
    // A link into procfs: Node's recursive mkdir loops forever on procfs, so the check must not try.
    await symlink('/proc/self', path.join(dir, 'proc-link'));
    const cases = [
      [{ stateDir: '/proc/switchboard-test/data' }, '/stateDir', '/proc'],
      [{ stateDir: path.join(dir, 'proc-link/switchboard-test') }, '/stateDir', '/proc'],
      [{ stateDir: '/sys/switchboard-test', store: { url: 'memory://' } }, '/stateDir', '/sys'],
      [
        { stateDir: path.join(dir, 'data'), log: { file: { path: '/proc/self/switchboard/log' } } },
        '/log/file/path',
        '/proc',
      ],
      [
        { stateDir: path.join(dir, 'data'), store: { url: 'sqlite:///dev/switchboard-test/db.sqlite' } },
        '/store/url',
        '/dev',
      ],
    ] as const;
    for (const [config, where, root] of cases) {
      const report = await checkStartable(parse(config), undefined, {
        via: 'tool',
        logger,
        channels: 'none',
      });
      expect(report.issues, where).toEqual([
        { path: where, message: expect.stringContaining(`is under ${root}, which holds no files`) },
      ]);
    }
    await expect(access('/dev/switchboard-test')).rejects.toThrow();
  }, 20_000);

  it('/config patch of a state dir or log file under /proc answers at once, naming the path; nothing is written', async () => {
    const gateway = await gatewayFor();
    const before = await readFile(gateway.configPath, 'utf8');
    for (const [patch, where] of [
      [{ stateDir: '/proc/switchboard-test' }, '/stateDir'],
      [{ log: { file: { path: '/proc/self/switchboard/log' } } }, '/log/file/path'],
    ] as const) {
      const answer = await reply(gateway, `/config patch ${JSON.stringify(patch)}`);
      expect(answer).toMatch(/^Refused: the new config is invalid; nothing was written/);
      expect(answer).toContain(`${where}: `);
      expect(answer).toContain('is under /proc, which holds no files');
    }
    expect(await readFile(gateway.configPath, 'utf8')).toBe(before);
  }, 20_000);

  it('bounds every step: a prompt file that never opens (a FIFO) is an issue naming it, not a hang', async () => {
    const dir = await makeTempDir('switchboard-start-check-');
    cleanups.push(() => removeDir(dir));
    const fifo = path.join(dir, 'prompt.fifo');
    execFileSync('mkfifo', [fifo]);
    // Opening its write end lets the blocked read end (a thread of libuv's pool) go.
    cleanups.push(() => closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK)));
    const config = parse({
      stateDir: path.join(dir, 'data'),
      store: { url: 'memory://' },
      agents: { main: { systemPromptFile: fifo } },
    });
    const report = await checkStartable(config, path.join(dir, 'gateway.jsonc'), {
      via: 'command',
      logger,
      channels: 'none',
      stepTimeoutMs: 300,
    });
    expect(report.issues).toEqual([
      { path: '/agents', message: "reading the agents' prompt files did not finish within 0.3 s" },
    ]);
  }, 20_000);
});
