import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer, FakeRequest } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { type FakeSlack, startFakeSlack } from '../fakes/fake-slack.js';
import { freePort, makeTempDir, removeDir } from '../helpers/machine.js';
import {
  countMessages,
  type GatewayProcess,
  killRunningChildren,
  type MessageResult,
  PROCESS_TEST_TOKEN,
  pollUntil,
  request,
  runCli,
  sendMessage,
  spawnGateway,
  WEBCHAT_SESSION_KEY,
  writeConfig,
} from '../helpers/process.js';
import { openEvents } from '../helpers/webchat-events.js';

// A promised restart note arrives once: across a SIGKILL before the restart ran, for every owner whose
// restart joined another, through a platform outage, from the shell CLI, and with a blank note.

let dir: string;
let model: FakeModelServer;

beforeAll(async () => {
  dir = await makeTempDir('switchboard-notes-');
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

let configs = 0;
/** A config of its own (state dir, port) for one test, with the fake model and `extra` merged in. */
async function setup(extra: Record<string, unknown> = {}) {
  const name = `notes-${++configs}`;
  const stateDir = path.join(dir, `${name}-state`);
  const configPath = await writeConfig(
    dir,
    {
      stateDir,
      http: { port: await freePort(), token: PROCESS_TEST_TOKEN },
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url } },
      agents: { main: { model: 'fake' } },
      // The notes are under test; the approval of the model's edits and restarts in approvals*.test.ts.
      approvals: { tools: { gateway: 'auto' } },
      ...extra,
    },
    `${name}.jsonc`,
  );
  return { stateDir, configPath, sentinel: path.join(stateDir, 'restart-sentinel.json') };
}

const replies = (events: { type: string; data: Record<string, unknown> }[]) =>
  events.filter((event) => event.type === 'reply').map((event) => event.data.text);

/**
 * The web chat replies `user` receives on a fresh event stream, up to the answer to a `/whoami`
 * sent after it opened: notes held for the user come first, so every note delivered is in the list.
 */
async function repliesUntilWhoami(url: string, user = 'local', note?: string): Promise<unknown[]> {
  const events = await openEvents({ url, token: PROCESS_TEST_TOKEN }, user);
  await request<MessageResult>(url, 'POST', '/api/webchat/messages', { text: '/whoami', user });
  // A note still being delivered may come after the /whoami answer: wait for it too when named.
  await pollUntil('the /whoami answer on the event stream', () => {
    const texts = replies(events.events).map(String);
    return texts.some((text) => text.startsWith('You are')) && (note === undefined || texts.includes(note));
  });
  return replies(events.events);
}

/** The system entries of a session's transcript (where the note is recorded for the agent). */
async function systemEntries(url: string, sessionKey = WEBCHAT_SESSION_KEY): Promise<string[]> {
  const transcript = await request<{ entries: { role: string; text: string }[] }>(
    url,
    'GET',
    `/api/sessions/${encodeURIComponent(sessionKey)}/transcript`,
  );
  return transcript.body.entries.filter((entry) => entry.role === 'system').map((entry) => entry.text);
}

async function kill(gateway: GatewayProcess): Promise<void> {
  gateway.child.kill('SIGKILL');
  expect(await gateway.exited).toEqual({ code: null, signal: 'SIGKILL' });
}

/** The tool result the model saw last. */
function lastToolResult(received: FakeRequest): any {
  const tool = received.body.messages.filter((message: any) => message.role === 'tool').at(-1);
  return JSON.parse(tool.content);
}

describe('a promised restart note', () => {
  it('/restart killed before its delay ran out: the next start posts the note once, saying so', async () => {
    const { configPath, sentinel } = await setup();
    const first = spawnGateway(['start', '--config', configPath]);
    const url = await first.waitForReady();
    const restart = await sendMessage(url, '/restart lost in a crash');
    expect(restart.body.replies[0]?.text).toBe('Restarting in 2 s; I will post here when I am back.');
    await kill(first);
    // The kill came within the 2 s: the restart never ran.
    expect(countMessages(first.logLines(), 'restarting')).toBe(0);

    const second = spawnGateway(['start', '--config', configPath]);
    const urlAgain = await second.waitForReady();
    const note = 'Gateway restarted (restart, after an unexpected stop): lost in a crash';
    await pollUntil('the note to be delivered', async () => !(await exists(sentinel)));
    expect((await repliesUntilWhoami(urlAgain)).filter((text) => text === note)).toHaveLength(1);
    expect((await systemEntries(urlAgain)).filter((text) => text === note)).toHaveLength(1);

    // A restart after it does not bring the note back.
    second.child.kill('SIGUSR1');
    const urlThird = await second.waitForReady(2);
    expect(await repliesUntilWhoami(urlThird)).not.toContain(note);
  });

  it('a config patch through the model killed before its restart: applied, and the note still arrives', async () => {
    const { configPath } = await setup();
    model.push({ toolCalls: [{ name: 'gateway', arguments: { action: 'config.get' } }] });
    model.push((received) => ({
      toolCalls: [
        {
          name: 'gateway',
          arguments: {
            action: 'config.patch',
            raw: '{ agents: { main: { displayName: "Patched Bot" } } }',
            baseHash: lastToolResult(received).result.hash,
            note: 'Renamed the agent.',
            restartDelayMs: 60_000,
          },
        },
      ],
    }));
    model.push((received) => ({ text: `restart: ${lastToolResult(received).result.restart.status}` }));
    const first = spawnGateway(['start', '--config', configPath]);
    const url = await first.waitForReady();
    const answer = await sendMessage(url, 'rename the agent');
    expect(answer.body.replies.at(-1)?.text).toBe('restart: scheduled');
    await kill(first);
    expect(await readFile(configPath, 'utf8')).toContain('Patched Bot');

    const second = spawnGateway(['start', '--config', configPath]);
    const urlAgain = await second.waitForReady();
    const note = 'Gateway restarted (config-patch, after an unexpected stop): Renamed the agent.';
    await pollUntil('the note in the transcript', async () => (await systemEntries(urlAgain)).includes(note));
    expect((await repliesUntilWhoami(urlAgain)).filter((text) => text === note)).toHaveLength(1);
  });

  it('two owners whose restarts coalesce into one each get their own note', async () => {
    const { configPath } = await setup({ owners: ['webchat:local', 'webchat:ann'] });
    const gateway = spawnGateway(['start', '--config', configPath]);
    const url = await gateway.waitForReady();
    const send = (text: string, user: string) =>
      request<MessageResult>(url, 'POST', '/api/webchat/messages', { text, user });
    await send('/restart note for local', 'local');
    await send('/restart note for ann', 'ann');
    const urlAgain = await gateway.waitForReady(2);
    expect(countMessages(gateway.logLines(), 'restarting')).toBe(1);
    await pollUntil('the notes in both transcripts', async () => {
      const local = await systemEntries(urlAgain);
      const ann = await systemEntries(urlAgain, 'agent:main:webchat:direct:ann');
      return local.length > 0 && ann.length > 0;
    });
    const forLocal = 'Gateway restarted (restart): note for local';
    const forAnn = 'Gateway restarted (restart): note for ann';
    expect(await repliesUntilWhoami(urlAgain, 'local', forLocal)).toContain(forLocal);
    expect(await repliesUntilWhoami(urlAgain, 'ann', forAnn)).toContain(forAnn);
  });

  it('a blank note renders as "Gateway restarted (<kind>)."', async () => {
    const { configPath, sentinel } = await setup();
    model.push({
      toolCalls: [{ name: 'gateway', arguments: { action: 'restart', note: '  \n ', delayMs: 0 } }],
    });
    model.push({ text: 'restarting' });
    const gateway = spawnGateway(['start', '--config', configPath]);
    const url = await gateway.waitForReady();
    await sendMessage(url, 'restart please, without a note');
    const urlAgain = await gateway.waitForReady(2);
    await pollUntil('the note to be delivered', async () => !(await exists(sentinel)));
    expect(await repliesUntilWhoami(urlAgain)).toContain('Gateway restarted (restart).');
    // `/restart` with nothing after it is a blank note too.
    await sendMessage(urlAgain, '/restart   ');
    const urlThird = await gateway.waitForReady(3);
    await pollUntil('the second note to be delivered', async () => !(await exists(sentinel)));
    expect((await repliesUntilWhoami(urlThird)).filter((text) => String(text).startsWith('Gateway'))).toEqual(
      ['Gateway restarted (restart).'],
    );
  });

  it('config patch --notify from the shell: the note arrives after the next restart', async () => {
    const { configPath, sentinel } = await setup();
    const gateway = spawnGateway(['start', '--config', configPath]);
    await gateway.waitForReady();
    const bad = await runCli([
      'config',
      'patch',
      '--config',
      configPath,
      '--notify',
      'email:me',
      '{"log":{}}',
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--notify: email:me is not a route');
    const patched = await runCli([
      'config',
      'patch',
      '--config',
      configPath,
      '--notify',
      'webchat:local',
      '--note',
      'patched from the shell',
      '{"agents":{"main":{"displayName":"Shell Bot"}}}',
    ]);
    expect(patched.stderr).toBe('');
    expect(patched.code).toBe(0);
    expect(patched.stdout).toContain('webchat:local gets a note after the restart');
    expect(await exists(sentinel)).toBe(true);
    gateway.child.kill('SIGUSR1');
    const urlAgain = await gateway.waitForReady(2);
    await pollUntil('the note to be delivered', async () => !(await exists(sentinel)));
    expect(await repliesUntilWhoami(urlAgain)).toContain(
      'Gateway restarted (config-patch): patched from the shell',
    );
  });

  it('switchboard restart --notify --note restarts the running gateway, and the note arrives once', async () => {
    const { configPath, sentinel } = await setup();
    const gateway = spawnGateway(['start', '--config', configPath]);
    await gateway.waitForReady();
    const noted = await runCli([
      'restart',
      '--config',
      configPath,
      '--notify',
      'webchat:local',
      '--note',
      'deploy 42 is live',
    ]);
    expect(noted.stderr).toBe('');
    expect(noted.code).toBe(0);
    expect(noted.stdout).toContain('webchat:local gets a note after the restart');
    // No SIGUSR1 from the test: the command itself restarts the gateway (same process).
    const urlAgain = await gateway.waitForReady(2);
    await pollUntil('the note to be delivered', async () => !(await exists(sentinel)));
    const notes = (await repliesUntilWhoami(urlAgain)).filter((text) => String(text).startsWith('Gateway'));
    expect(notes).toEqual(['Gateway restarted (restart): deploy 42 is live']);
  });

  it('switchboard restart sends nothing and records no note when restarts are off or no gateway runs', async () => {
    const off = await setup({ commands: { restart: false } });
    const refused = await runCli([
      'restart',
      '--config',
      off.configPath,
      '--notify',
      'webchat:local',
      '--note',
      'x',
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('commands.restart false');
    const idle = await setup();
    const nobody = await runCli([
      'restart',
      '--config',
      idle.configPath,
      '--notify',
      'webchat:local',
      '--note',
      'x',
    ]);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toContain('no running gateway recorded in');
    expect([await exists(off.sentinel), await exists(idle.sentinel)]).toEqual([false, false]);
  });
});

describe('a restart note while the platform is down', () => {
  let fake: FakeSlack;
  beforeAll(async () => {
    fake = await startFakeSlack();
  });
  afterAll(async () => {
    await killRunningChildren();
    await fake.close();
  });

  it('is kept, retried across a SIGKILL, and posted once when Slack is back', async () => {
    const { configPath, sentinel } = await setup({
      owners: ['slack:U1'],
      channels: { slack: { botToken: 'xoxb-notes', appToken: 'xapp-notes', apiUrl: fake.apiUrl } },
    });
    const note = 'Gateway restarted (restart): through the outage';
    const noteCalls = () => fake.callsTo('chat.postMessage').filter((call) => call.args.text === note).length;
    const first = spawnGateway(['start', '--config', configPath]);
    await first.waitForReady();
    await fake.connected();
    await fake.deliver({
      type: 'message',
      channel: 'C1',
      channel_type: 'channel',
      user: 'U1',
      text: `<@${fake.botUserId}> /restart through the outage`,
      ts: '40.1',
    });
    await fake.waitForCall(
      'chat.postMessage',
      (call) => call.args.text?.startsWith('Restarting in') === true,
    );
    fake.failFor('chat.postMessage', 'C1', 'service_unavailable');
    await first.waitForReady(2);
    await pollUntil('three failed attempts', () => noteCalls() >= 3);
    await kill(first);
    expect(await exists(sentinel)).toBe(true);

    fake.recover('chat.postMessage', 'C1');
    const before = noteCalls();
    const second = spawnGateway(['start', '--config', configPath]);
    await second.waitForReady();
    await pollUntil('the note to be delivered', async () => !(await exists(sentinel)));
    expect(noteCalls()).toBe(before + 1);
    const posted = fake
      .callsTo('chat.postMessage')
      .filter((call) => call.args.text === note)
      .at(-1);
    expect(posted?.args).toMatchObject({ channel: 'C1', thread_ts: '40.1' });
    // Another restart posts nothing again.
    second.child.kill('SIGUSR1');
    await second.waitForReady(2);
    await fake.connected();
    expect(noteCalls()).toBe(before + 1);
    // Two gateway processes, three retried posts and four starts: on a loaded machine (CI ran it
    // beside other suites) this took over the default 30 s.
  }, 90_000);
});
