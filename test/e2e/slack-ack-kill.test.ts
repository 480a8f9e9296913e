import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { eventCallback, type FakeSlack, postSignedEvent, startFakeSlack } from '../fakes/fake-slack.js';
import { freePort, makeTempDir, removeDir } from '../helpers/machine.js';
import {
  killRunningChildren,
  PROCESS_TEST_TOKEN,
  pollUntil,
  request,
  spawnGateway,
  writeConfig,
} from '../helpers/process.js';

const RESUMED_LINE = 'Resumed after a restart';

// Slack's acknowledgement means the message is kept: the built gateway in HTTP mode, SIGKILLed as
// soon as the fake Slack has the 200 for a message whose turn is held (the fake model hangs, and
// `reactions.add` is held too, as a rate-limited Slack would), answers that message once, in its
// thread, after the next start.

const SECRET = 'kill-signing-secret-19';
const SESSION = 'agent:main:slack:channel:C1:thread:80.1';

let dir: string;
let fake: FakeSlack;
let model: FakeModelServer;
/** Set once the first process is killed: from then on the model answers. */
let killed = false;

beforeAll(async () => {
  dir = await makeTempDir('switchboard-slack-ack-');
  fake = await startFakeSlack();
  model = await startFakeOpenAIServer({
    defaultStep: () => (killed ? { text: 'answered after the restart' } : { hang: true }),
  });
});

afterEach(async () => {
  await killRunningChildren();
});

afterAll(async () => {
  await killRunningChildren();
  await fake.close();
  await model.close();
  await removeDir(dir);
});

describe('a Slack event acknowledged right before a SIGKILL', () => {
  it('is answered once in its thread after the next start', async () => {
    const configPath = await writeConfig(dir, {
      stateDir: path.join(dir, 'state'),
      http: { port: await freePort(), token: PROCESS_TEST_TOKEN },
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url } },
      agents: { main: { model: 'fake' } },
      channels: {
        slack: { mode: 'http', botToken: 'xoxb-kill', signingSecret: SECRET, apiUrl: fake.apiUrl },
      },
    });
    const releaseReaction = fake.hold('reactions.add');
    const first = spawnGateway(['start', '--config', configPath]);
    const url = await first.waitForReady();
    const event = eventCallback(
      {
        type: 'message',
        channel: 'C1',
        channel_type: 'channel',
        user: 'U1',
        text: '<@UBOT> keep me',
        ts: '80.1',
      },
      'EvKill1',
    );
    // Slack delivers again while the channel is still connecting (503); the first 200 is the ack.
    await pollUntil('a 200 from /slack/events', async () =>
      (await postSignedEvent(`${url}/slack/events`, event, SECRET)) === 200 ? true : undefined,
    );
    first.child.kill('SIGKILL');
    await first.exited;
    killed = true;
    releaseReaction();

    const second = spawnGateway(['start', '--config', configPath]);
    const again = await second.waitForReady();
    // A turn the kill cut short is resumed (issue 32 §1): the thread gets that one line, then the answer.
    const reply = await fake.waitForCall(
      'chat.postMessage',
      (call) => call.args.thread_ts === '80.1' && call.args.text !== RESUMED_LINE,
      30_000,
    );
    expect(reply.args).toMatchObject({ channel: 'C1', text: 'answered after the restart' });
    const transcript = await pollUntil('the answer in the transcript', async () => {
      const answer = await request<{ entries?: { role: string; text: string }[] }>(
        again,
        'GET',
        `/api/sessions/${encodeURIComponent(SESSION)}/transcript`,
      );
      const entries = answer.body.entries ?? [];
      return entries.some((entry) => entry.role === 'assistant') ? entries : undefined;
    });
    expect(transcript.filter((entry) => entry.role === 'user').map((entry) => entry.text)).toEqual([
      'keep me',
    ]);
    const answers = fake
      .callsTo('chat.postMessage')
      .filter((call) => call.args.thread_ts === '80.1' && call.args.text !== RESUMED_LINE);
    expect(answers).toHaveLength(1);
  }, 90_000);
});
