import { access } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { freePort, makeTempDir, removeDir } from '../helpers/machine.js';
import {
  countMessages,
  killRunningChildren,
  PROCESS_TEST_TOKEN,
  pollUntil,
  sendMessage,
  spawnGateway,
  writeConfig,
} from '../helpers/process.js';
import { openEvents } from '../helpers/webchat-events.js';

// The restart sentinel across a crash, with the built gateway as a real process.

let dir: string;
let model: FakeModelServer;

beforeAll(async () => {
  dir = await makeTempDir('switchboard-sentinel-');
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

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

describe('the restart sentinel', () => {
  it('survives a SIGKILL after it was written: the next start still delivers the note', async () => {
    const stateDir = path.join(dir, 'crash-state');
    const port = await freePort();
    const configPath = await writeConfig(
      dir,
      {
        stateDir,
        http: { port, token: PROCESS_TEST_TOKEN },
        models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url } },
        agents: { main: { model: 'fake' } },
        // The restart waits for the hanging turn this long: the test kills the process meanwhile.
        gateway: { drainTimeoutMs: 60_000 },
      },
      'crash.jsonc',
    );
    model.push({ hang: true });
    const first = spawnGateway(['start', '--config', configPath]);
    const url = await first.waitForReady();
    void sendMessage(url, 'a question the model never answers').catch(() => {});
    await model.waitForRequests(1);
    const restart = await sendMessage(url, '/restart survived a crash');
    expect(restart.body.replies[0]?.text).toBe('Restarting in 2 s; I will post here when I am back.');
    const sentinel = path.join(stateDir, 'restart-sentinel.json');
    // The sentinel is written when the restart is committed, before it drains the running turn,
    // which holds it (drainTimeoutMs is a minute).
    await pollUntil(
      'the restart to start draining',
      () => countMessages(first.logLines(), 'restarting') === 1,
    );
    expect(await exists(sentinel)).toBe(true);
    first.child.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });

    const second = spawnGateway(['start', '--config', configPath]);
    const urlAgain = await second.waitForReady();
    const events = await openEvents({ url: urlAgain, token: PROCESS_TEST_TOKEN }, 'local');
    await expect
      .poll(() => events.events.filter((event) => event.type === 'reply').map((event) => event.data.text))
      .toContain('Gateway restarted (restart): survived a crash');
    // The note leaves the sentinel once it was posted (after the post, so a kill between posts it again).
    await pollUntil('the delivered note to leave the sentinel', async () => !(await exists(sentinel)));
  });

  it('ignores SIGUSR1 when commands.restart is false', async () => {
    const port = await freePort();
    const configPath = await writeConfig(
      dir,
      {
        stateDir: path.join(dir, 'no-restart-state'),
        http: { port, token: PROCESS_TEST_TOKEN },
        commands: { restart: false },
      },
      'no-restart.jsonc',
    );
    const gateway = spawnGateway(['start', '--config', configPath]);
    const url = await gateway.waitForReady();
    gateway.child.kill('SIGUSR1');
    await pollUntil('the ignored signal to be logged', () =>
      gateway
        .logLines()
        .some((line) => line.msg === 'SIGUSR1 received; ignored because commands.restart is false'),
    );
    expect(countMessages(gateway.logLines(), 'restarting')).toBe(0);
    expect((await sendMessage(url, '/whoami')).status).toBe(200);
  });
});
