import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createFakeDiscord, type FakeDiscord } from '../fakes/fake-discord.js';
import { type FakeSlack, startFakeSlack } from '../fakes/fake-slack.js';
import { whoamiOnBoth } from '../helpers/channels.js';
import { freePort, makeTempDir, removeDir } from '../helpers/machine.js';
import {
  isReadyLine,
  killRunningChildren,
  PROCESS_TEST_TOKEN,
  pollUntil,
  spawnGateway,
  writeConfig,
} from '../helpers/process.js';

/**
 * The built gateway as a real process with Slack and Discord connected (to the fakes in this
 * process): SIGUSR1 restarts it in place ten times; each time both platforms reconnect and answer,
 * and afterwards the process holds no more file descriptors (sockets included) than before.
 */

const TOKEN = 'fake-discord-signal-token';
const GUILD = '900000000000000401';
const CHANNEL = '910000000000000401';
const PLACE = { guildId: GUILD, channelId: CHANNEL, authorId: '930000000000000401' };

let dir: string;
let slack: FakeSlack | undefined;
let discord: FakeDiscord | undefined;
beforeAll(async () => {
  dir = await makeTempDir('switchboard-channels-signals-');
});
afterEach(async () => {
  await killRunningChildren();
  await slack?.close();
  await discord?.close();
});
afterAll(async () => {
  await removeDir(dir);
});

const descriptors = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

describe('SIGUSR1 with Slack and Discord connected', () => {
  it('ten restarts reconnect both platforms, answer on both, and leak no descriptors', async () => {
    const [fakeSlack, fakeDiscord] = [
      await startFakeSlack(),
      await createFakeDiscord({ token: TOKEN, guilds: [{ id: GUILD, channels: [CHANNEL] }] }),
    ];
    slack = fakeSlack;
    discord = fakeDiscord;
    const configPath = await writeConfig(dir, {
      stateDir: path.join(dir, 'state'),
      http: { port: await freePort(), token: PROCESS_TEST_TOKEN },
      channels: {
        slack: { botToken: 'xoxb-signals', appToken: 'xapp-signals', apiUrl: fakeSlack.apiUrl },
        discord: { token: TOKEN, apiBase: fakeDiscord.apiBase },
      },
    });
    const gateway = spawnGateway(['start', '--config', configPath]);
    await gateway.waitForReady();

    const roundTrip = async (round: number) => {
      await pollUntil('one Socket Mode and one Discord gateway connection', () =>
        fakeSlack.sockets === 1 && fakeDiscord.connections() === 1 ? true : undefined,
      );
      await whoamiOnBoth(fakeSlack, fakeDiscord, PLACE, round);
    };

    await roundTrip(0);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const before = descriptors(gateway.pid);
    for (let restart = 1; restart <= 10; restart += 1) {
      gateway.child.kill('SIGUSR1');
      await gateway.waitForReady(restart + 1);
      await roundTrip(restart);
    }

    const lines = gateway.logLines();
    expect(lines.filter(isReadyLine).at(-1)).toMatchObject({ pid: gateway.pid, restarts: 10 });
    expect(lines.some((line) => /could not start|restart failed/.test(line.msg ?? ''))).toBe(false);
    expect(fakeSlack.callsTo('apps.connections.open')).toHaveLength(11);
    expect(fakeSlack.callsTo('chat.postMessage')).toHaveLength(11);
    expect(fakeDiscord.posted).toHaveLength(11);
    // Sockets of stopped clients close at once or when their keep-alive ends (a few seconds).
    const after = await pollUntil(
      `at most ${before} descriptors`,
      () => {
        const count = descriptors(gateway.pid);
        return count <= before ? count : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 250 },
    );
    expect(after).toBeLessThanOrEqual(before);
    expect(gateway.child.exitCode).toBeNull();
  }, 120_000);
});
