import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createFakeDiscord, type FakeDiscord } from '../fakes/fake-discord.js';
import { type FakeSlack, startFakeSlack } from '../fakes/fake-slack.js';
import { freePort, makeTempDir, removeDir } from '../helpers/machine.js';
import {
  killRunningChildren,
  PROCESS_TEST_TOKEN,
  pollUntil,
  runCli,
  spawnGateway,
  writeConfig,
} from '../helpers/process.js';

/**
 * Issue 33 item 8: a second `start` on a port that is taken checks the port before it connects
 * to any platform. Beside a running gateway it says "a gateway already answers on
 * 127.0.0.1:PORT (pid N)" and exits 1 with no stack, having opened no Slack Socket Mode and no
 * Discord gateway connection (the fakes count them); beside another program it says so.
 */

const TOKEN = 'fake-discord-port-token';
const GUILD = '900000000000000501';
const CHANNEL = '910000000000000501';

let dir: string;
let slack: FakeSlack | undefined;
let discord: FakeDiscord | undefined;
let other: Server | undefined;

beforeAll(async () => {
  dir = await makeTempDir('switchboard-port-taken-');
});
afterEach(async () => {
  await killRunningChildren();
  await slack?.close();
  await discord?.close();
  await new Promise((resolve) => (other ? other.close(resolve) : resolve(undefined)));
});
afterAll(async () => {
  await removeDir(dir);
});

const noStack = (text: string) => expect(text).not.toMatch(/^\s+at /m);

describe('start on a taken port', () => {
  it('beside a running gateway: names it and its pid, exits 1, connects no platform', async () => {
    slack = await startFakeSlack();
    discord = await createFakeDiscord({ token: TOKEN, guilds: [{ id: GUILD, channels: [CHANNEL] }] });
    const port = await freePort();
    const config = await writeConfig(dir, {
      stateDir: path.join(dir, 'state'),
      http: { port, token: PROCESS_TEST_TOKEN },
      channels: {
        slack: { botToken: 'xoxb-port', appToken: 'xapp-port', apiUrl: slack.apiUrl },
        discord: { token: TOKEN, apiBase: discord.apiBase },
      },
    });
    const first = spawnGateway(['start', '--config', config]);
    await first.waitForReady();
    const fakeSlack = slack;
    const fakeDiscord = discord;
    await pollUntil('one Socket Mode and one Discord gateway connection', () =>
      fakeSlack.sockets === 1 && fakeDiscord.connections() === 1 ? true : undefined,
    );
    const opened = fakeSlack.callsTo('apps.connections.open').length;
    const identified = fakeDiscord.identifies();

    const second = await runCli(['start', '--config', config], { timeoutMs: 30_000 });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`a gateway already answers on 127.0.0.1:${port} (pid ${first.pid})`);
    noStack(second.stderr);
    expect(second.stderr).not.toContain('EADDRINUSE');
    expect(fakeSlack.callsTo('apps.connections.open')).toHaveLength(opened);
    expect(fakeDiscord.identifies()).toBe(identified);
    expect(fakeSlack.sockets).toBe(1);
    expect(fakeDiscord.connections()).toBe(1);
    // The first one still serves.
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  });

  it('beside another program: says the port is taken by something that is not a gateway', async () => {
    const port = await freePort();
    const server = createServer((_request, response) => response.writeHead(404).end('not here'));
    other = server;
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    const config = await writeConfig(
      dir,
      { stateDir: path.join(dir, 'state-2'), http: { port, token: PROCESS_TEST_TOKEN } },
      'other.jsonc',
    );
    const second = await runCli(['start', '--config', config], { timeoutMs: 30_000 });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(
      `127.0.0.1:${port} is taken by another program (not a Switchboard gateway)`,
    );
    noStack(second.stderr);
  });
});
