import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { freePort, makeTempDir, removeDir } from '../helpers/machine.js';
import {
  killRunningChildren,
  PROCESS_TEST_TOKEN,
  pollUntil,
  REPO_ROOT,
  spawnGateway,
  writeConfig,
} from '../helpers/process.js';

// "Acknowledged means durable, across SIGKILL", for a controller's `store.sendMessage`: it returns
// `{ id }` synchronously and the toolpack records the send as done (the scheduler marks a once job
// done and writes jobs.json). The fixture sends from its scheduler tick, records the id and SIGKILLs
// its own gateway in the same turn of the event loop, so no asynchronous store write can have
// landed: whatever keeps the message must have been written before sendMessage returned. The next
// start must deliver it to the agent, once.

const FIXTURE = path.join(REPO_ROOT, 'test/fixtures/controller-toolpacks/send-then-die');
const BODY = 'DURABLE send-then-die';

let dir: string | undefined;
let model: FakeModelServer | undefined;

afterEach(async () => {
  await killRunningChildren();
  await model?.close();
  if (dir) await removeDir(dir);
  dir = undefined;
  model = undefined;
});

const carriesBody = (request: unknown) => JSON.stringify(request).includes(BODY);

describe('a controller message across a SIGKILL right after sendMessage returned', () => {
  it('reaches its agent after the next start, once', async () => {
    dir = await makeTempDir('switchboard-outbox-kill-');
    model = await startFakeOpenAIServer();
    const stateDir = path.join(dir, 'state');
    const configPath = await writeConfig(dir, {
      stateDir,
      http: { port: await freePort(), token: PROCESS_TEST_TOKEN },
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url } },
      agents: { main: { model: 'fake', tools: [] } },
      tools: { toolpacks: ['core', { path: FIXTURE, id: 'send-then-die' }] },
      scheduler: { tickMs: 100 },
    });
    const first = spawnGateway(['start', '--config', configPath], { cwd: REPO_ROOT });
    expect((await first.exited).signal).toBe('SIGKILL');
    const marker = path.join(stateDir, 'toolpack-state', 'send-then-die');
    const sentId = readFileSync(path.join(marker, 'sent'), 'utf8');
    expect(sentId).toMatch(/^msg_/);

    const second = spawnGateway(['start', '--config', configPath], { cwd: REPO_ROOT });
    await second.waitForReady();
    // The scheduler has ticked in this process: a pending message was due to its agent by now.
    await pollUntil('a scheduler tick after the restart', () => existsSync(path.join(marker, 'ticked')));
    await pollUntil(`the model turn carrying "${BODY}" (message ${sentId})`, () =>
      model?.requests.some(carriesBody),
    );
    // Once: later ticks and turns do not bring it again.
    second.child.kill('SIGTERM');
    await second.exited;
    const turnsWithIt = model.requests.filter(
      (request) => carriesBody(request) && request.messages?.filter(carriesBody).length === 1,
    );
    expect(turnsWithIt.length).toBeGreaterThan(0);
    expect(model.requests.every((request) => (request.messages ?? []).filter(carriesBody).length <= 1)).toBe(
      true,
    );
  }, 90_000);
});
