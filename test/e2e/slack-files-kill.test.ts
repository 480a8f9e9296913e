import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeFileHost, startFakeFileHost } from '../fakes/fake-file-host.js';
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

// Acknowledged means durable for a Slack message with a file too: the built gateway in HTTP mode
// acknowledges the event while its file still downloads (the file host holds it), is SIGKILLed
// right after Slack's 200, and answers the message once, with its file, after the next start.

const SECRET = 'files-kill-signing-secret-7';
const BOT_TOKEN = 'xoxb-files-kill';
const SESSION = 'agent:main:slack:channel:C1:thread:81.1';

let dir: string;
let fake: FakeSlack;
let host: FakeFileHost;
let model: FakeModelServer;
let killed = false;

beforeAll(async () => {
  dir = await makeTempDir('switchboard-slack-files-kill-');
  fake = await startFakeSlack();
  host = await startFakeFileHost({ token: BOT_TOKEN });
  model = await startFakeOpenAIServer({
    defaultStep: () => (killed ? { text: 'answered with the file' } : { hang: true }),
  });
});

afterEach(async () => {
  await killRunningChildren();
});

afterAll(async () => {
  await killRunningChildren();
  await fake.close();
  await host.close();
  await model.close();
  await removeDir(dir);
});

describe('a Slack message whose file still downloads when the event is acknowledged', () => {
  it('is answered once, with its file, after a SIGKILL right after the acknowledgement', async () => {
    const configPath = await writeConfig(dir, {
      stateDir: path.join(dir, 'state'),
      http: { port: await freePort(), token: PROCESS_TEST_TOKEN },
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url } },
      agents: { main: { model: 'fake' } },
      channels: {
        slack: { mode: 'http', botToken: BOT_TOKEN, signingSecret: SECRET, apiUrl: fake.apiUrl },
      },
    });
    host.add('notes.txt', Buffer.from('kept across a kill\n'), 'text/plain');
    const releaseDownloads = host.hold();
    const first = spawnGateway(['start', '--config', configPath]);
    const url = await first.waitForReady();
    const event = eventCallback(
      {
        type: 'message',
        subtype: 'file_share',
        channel: 'C1',
        channel_type: 'channel',
        user: 'U1',
        text: '<@UBOT> read my notes',
        ts: '81.1',
        files: [{ name: 'notes.txt', mimetype: 'text/plain', size: 19, url_private: host.url('notes.txt') }],
      },
      'EvFilesKill1',
    );
    await pollUntil('a 200 from /slack/events', async () =>
      (await postSignedEvent(`${url}/slack/events`, event, SECRET)) === 200 ? true : undefined,
    );
    // Acknowledged, and killed while the download is held: the file had not arrived.
    await pollUntil('the download started', async () =>
      host.downloads.some((download) => download.name === 'notes.txt') ? true : undefined,
    );
    first.child.kill('SIGKILL');
    await first.exited;
    killed = true;
    releaseDownloads();

    const second = spawnGateway(['start', '--config', configPath]);
    const again = await second.waitForReady();
    const reply = await fake.waitForCall(
      'chat.postMessage',
      (call) => call.args.thread_ts === '81.1',
      30_000,
    );
    expect(reply.args).toMatchObject({ channel: 'C1', text: 'answered with the file' });
    const transcript = await pollUntil('the answer in the transcript', async () => {
      const answer = await request<{
        entries?: { role: string; text: string; files?: { name: string; path?: string }[] }[];
      }>(again, 'GET', `/api/sessions/${encodeURIComponent(SESSION)}/transcript`);
      const entries = answer.body.entries ?? [];
      return entries.some((entry) => entry.role === 'assistant') ? entries : undefined;
    });
    const users = transcript.filter((entry) => entry.role === 'user');
    expect(users.map((entry) => entry.text)).toEqual(['read my notes']);
    expect(users[0]?.files?.map((file) => file.name)).toEqual(['notes.txt']);
    expect(users[0]?.files?.[0]?.path).toBeDefined();
    expect(fake.callsTo('chat.postMessage').filter((call) => call.args.thread_ts === '81.1')).toHaveLength(1);
  }, 90_000);
});
