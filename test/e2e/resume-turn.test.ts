import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer, FakeRequest, FakeStep } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { freePort, makeTempDir, removeDir } from '../helpers/machine.js';
import {
  type GatewayProcess,
  killRunningChildren,
  PROCESS_TEST_TOKEN,
  pollUntil,
  REPO_ROOT,
  request,
  spawnGateway,
  writeConfig,
} from '../helpers/process.js';

// A turn cut short by SIGKILL is resumed at the next start (issue 32 §1): the built gateway, the
// fake model server, real `shell.exec`. A read-only call left without a result runs again, a
// `shell.exec` does not (the model reads that its outcome is unknown), and the chat gets one
// answer. A turn killed three times, and one interrupted longer ago than the limit, are ended
// with a message instead.

const OWNER = 'owner';
const SESSION = `agent:main:webchat:direct:${OWNER}`;

let dir: string;
/** What the fake model does with each request: set per test. */
let step: (request: FakeRequest) => FakeStep = () => ({ text: 'ok' });
let model: FakeModelServer;

beforeAll(async () => {
  dir = await makeTempDir('switchboard-resume-');
  model = await startFakeOpenAIServer({ defaultStep: (fake) => step(fake) });
});

afterEach(async () => {
  await killRunningChildren();
});

afterAll(async () => {
  await killRunningChildren();
  await model.close();
  await removeDir(dir);
});

interface Entry {
  role: string;
  text: string;
  toolName?: string;
}

async function setup(name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const home = path.join(dir, name);
  await mkdir(home, { recursive: true });
  return writeConfig(home, {
    stateDir: path.join(home, 'state'),
    http: { port: await freePort(), token: PROCESS_TEST_TOKEN },
    owners: [`webchat:${OWNER}`],
    models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url } },
    agents: { main: { model: 'fake', tools: ['*'] } },
    tools: { toolpacks: ['core', 'shell'] },
    approvals: { tools: { 'shell.exec': 'auto' } },
    // Three SIGKILLs in a row would trip the crash-loop breaker (issue 32 §2); this tests resuming.
    gateway: { crashLoop: { uncleanStarts: 0 } },
    ...extra,
  });
}

async function start(configPath: string): Promise<{ gateway: GatewayProcess; url: string }> {
  const gateway = spawnGateway(['start', '--config', configPath], { cwd: REPO_ROOT });
  return { gateway, url: await gateway.waitForReady() };
}

async function kill(gateway: GatewayProcess): Promise<void> {
  gateway.child.kill('SIGKILL');
  await gateway.exited;
}

/** Sends a message as the owner; the request dies with the process, so its answer is not awaited. */
function ask(url: string, text: string): void {
  void request(url, 'POST', '/api/webchat/messages', { text, user: OWNER }).catch(() => {});
}

async function transcript(url: string): Promise<Entry[]> {
  const answer = await request<{ entries?: Entry[] }>(
    url,
    'GET',
    `/api/sessions/${encodeURIComponent(SESSION)}/transcript`,
  );
  return answer.body.entries ?? [];
}

const lastMessage = (fake: FakeRequest) => fake.body?.messages?.at(-1);

describe('a turn cut short by SIGKILL', () => {
  it('resumes: the read-only call runs again, shell.exec does not (its outcome unknown), one answer', async () => {
    const configPath = await setup('resume');
    const marker = path.join(dir, 'resume', 'shell-ran.txt');
    let killed = false;
    step = (fake) => {
      const last = lastMessage(fake);
      if (last?.role === 'user' && String(last.content).includes('CHECK AND RUN'))
        return {
          toolCalls: [
            { name: 'session_status', arguments: {}, id: 'call_status' },
            {
              name: 'shell.exec',
              arguments: { command: `echo ran >> ${marker}; sleep 60` },
              id: 'call_shell',
            },
          ],
        };
      return killed ? { text: 'FINAL ANSWER' } : { hang: true };
    };
    const first = await start(configPath);
    ask(first.url, 'CHECK AND RUN');
    // The shell command has started (its line is written), the read-only call ran before it: kill now.
    await pollUntil('the shell command to start', () =>
      readFile(marker, 'utf8').then((text) => text.length > 0),
    );
    const before = model.requests.length;
    killed = true;
    await kill(first.gateway);

    const second = await start(configPath);
    const entries = await pollUntil('the resumed answer', async () => {
      const all = await transcript(second.url);
      return all.some((entry) => entry.role === 'assistant' && entry.text === 'FINAL ANSWER') && all;
    });
    // The model was called again with what it had: the user message, its two calls, and their results.
    const resumed = model.requests.slice(before);
    expect(resumed).toHaveLength(1);
    const tools = (resumed[0]?.messages ?? []).filter((message: any) => message.role === 'tool');
    const byId = new Map(tools.map((message: any) => [message.tool_call_id, String(message.content)]));
    expect(byId.get('call_status')).toContain(SESSION);
    expect(byId.get('call_shell')).toMatch(
      /^Outcome unknown: the gateway restarted while this shell\.exec call/,
    );
    // shell.exec ran once, before the kill.
    expect(await readFile(marker, 'utf8')).toBe('ran\n');
    // One answer, one result per call, the user's message once.
    expect(
      entries.filter((entry) => entry.role === 'assistant' && !entry.text.startsWith('FINAL')).length,
    ).toBe(1);
    expect(
      entries.filter((entry) => entry.role === 'assistant' && entry.text === 'FINAL ANSWER'),
    ).toHaveLength(1);
    expect(entries.filter((entry) => entry.role === 'tool').map((entry) => entry.toolName)).toEqual([
      'session_status',
      'shell.exec',
    ]);
    expect(entries.filter((entry) => entry.role === 'user')).toHaveLength(1);
    const logged = second.gateway.logLines().filter((line) => line.msg === 'turn resumed after a restart');
    expect(logged.map((line) => [line.repeated, line.unknown])).toEqual([[1, 1]]);
  }, 120_000);

  it('is ended with a message after its third SIGKILL', async () => {
    const configPath = await setup('thrice');
    step = () => ({ hang: true });
    // Counted before each start: a resumed turn may call the model before its start is awaited.
    let calls = model.received.length;
    let gateway = await start(configPath);
    ask(gateway.url, 'NEVER ANSWERED');
    for (let kill_ = 1; kill_ <= 3; kill_ += 1) {
      // The turn is running: its model call arrived (the first start's, then each resumed one).
      await pollUntil(`model call of attempt ${kill_}`, () => model.received.length > calls);
      calls = model.received.length;
      await kill(gateway.gateway);
      gateway = await start(configPath);
    }
    const entries = await pollUntil('the turn ended', async () => {
      const all = await transcript(gateway.url);
      return (
        all.some((entry) => entry.role === 'system' && entry.text.includes('stopped each of the 3 times')) &&
        all
      );
    });
    expect(entries.filter((entry) => entry.role === 'user')).toHaveLength(1);
    // The fourth start ended it without calling the model.
    const ended = model.received.length;
    await sleep(500); // past the start: no resumed turn calls the model
    expect(model.received.length).toBe(ended);
  }, 120_000);

  it('is ended, not resumed, when it was interrupted longer ago than agentLoop.resumeWithinMs', async () => {
    const configPath = await setup('stale', { agentLoop: { resumeWithinMs: 1000 } });
    step = () => ({ hang: true });
    const first = await start(configPath);
    const calls = model.received.length;
    ask(first.url, 'TOO OLD');
    await pollUntil('the model call', () => model.received.length > calls);
    await kill(first.gateway);
    await sleep(1500); // past the 1 s limit
    step = () => ({ text: 'SHOULD NOT ANSWER' });
    const second = await start(configPath);
    const entries = await pollUntil('the turn ended', async () => {
      const all = await transcript(second.url);
      return all.some((entry) => entry.role === 'system' && entry.text.includes('resume limit')) && all;
    });
    expect(entries.some((entry) => entry.text === 'SHOULD NOT ANSWER')).toBe(false);
    expect(model.received.length).toBe(calls + 1);
  }, 120_000);
});
