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
import { openEvents } from '../helpers/webchat-events.js';

// A sub-agent run cut short by SIGKILL follows the resume rule of turns (issue 32 §1): the built
// gateway, the fake model server, real `shell.exec`. The child's turn goes on from its transcript
// after the next start (not ended `interrupted`): a read-only call left without a result runs
// again, a `shell.exec` does not (the child's model reads that its outcome is unknown); its
// requester gets one announcement of its real result and answers it once, and the chat sees one
// "Resumed after a restart" line, not a repeated answer. A run killed three times, one
// interrupted longer ago than `agentLoop.resumeWithinMs`, and one whose agent says
// `resume: "off"` are ended `interrupted` instead, and the announcement says why.

const OWNER = 'owner';
const SESSION = `agent:main:webchat:direct:${OWNER}`;
const RESUMED_LINE = 'Resumed after a restart';

let dir: string;
let model: FakeModelServer;
/** What the fake model does with each request: set per test. */
let step: (request: FakeRequest) => FakeStep = () => ({ text: 'ok' });

beforeAll(async () => {
  dir = await makeTempDir('switchboard-resume-subagent-');
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

async function setup(
  name: string,
  agent: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): Promise<string> {
  const home = path.join(dir, name);
  await mkdir(home, { recursive: true });
  return writeConfig(home, {
    stateDir: path.join(home, 'state'),
    http: { port: await freePort(), token: PROCESS_TEST_TOKEN },
    owners: [`webchat:${OWNER}`],
    models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url } },
    agents: { main: { model: 'fake', tools: ['*'], ...agent } },
    // SIGKILLs test resuming here, not the crash-loop breaker (issue 32 §2).
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

async function transcript(url: string, key: string): Promise<Entry[]> {
  const answer = await request<{ entries?: Entry[] }>(
    url,
    'GET',
    `/api/sessions/${encodeURIComponent(key)}/transcript`,
  );
  return answer.body.entries ?? [];
}

const contentOf = (message: any): string =>
  typeof message?.content === 'string' ? message.content : JSON.stringify(message?.content ?? '');
const messagesOf = (fake: FakeRequest): any[] => fake.body?.messages ?? [];
/** The child's requests: its conversation holds its task. */
const isChild = (fake: FakeRequest) =>
  messagesOf(fake).some((message) => contentOf(message).includes('CHILD TASK'));
const isAnnouncement = (fake: FakeRequest) =>
  contentOf(messagesOf(fake).at(-1)).includes('Sub-agent announcement');
/** The child's model calls, all or since a request's index. */
const childCalls = (since = 0) => model.received.slice(since).filter(isChild).length;

/** The announcements the parent's transcript holds, parsed. */
function announcementsIn(entries: Entry[]): Record<string, unknown>[] {
  return entries
    .filter((entry) => entry.text.includes('Sub-agent announcement'))
    .map((entry) => JSON.parse(entry.text.slice(entry.text.indexOf('{'))));
}

/** The parent's transcript once it answered the child's announcement. */
function parentAnswered(url: string): Promise<Entry[]> {
  return pollUntil('the parent answering the announcement', async () => {
    const all = await transcript(url, SESSION);
    return all.some((entry) => entry.role === 'assistant' && entry.text === 'PARENT GOT IT') && all;
  });
}

/**
 * The parent spawns a child and answers "WORKER STARTED"; the child calls `session_status`
 * (restart-safe) and then its model call hangs until the kill; after it, the child answers
 * "CHILD RESULT". The parent answers an announcement with "PARENT GOT IT".
 */
function script(
  state: { killed: boolean },
  childCalls: FakeStep = { toolCalls: [{ name: 'session_status', arguments: {}, id: 'call_child' }] },
) {
  return (fake: FakeRequest): FakeStep => {
    const last = messagesOf(fake).at(-1);
    if (isChild(fake)) {
      if (last?.role !== 'tool') return childCalls;
      return state.killed ? { text: 'CHILD RESULT' } : { hang: true };
    }
    if (isAnnouncement(fake)) return { text: 'PARENT GOT IT' };
    if (last?.role === 'tool') return { text: 'WORKER STARTED' };
    return {
      toolCalls: [
        {
          name: 'sessions_spawn',
          arguments: { task: 'CHILD TASK: report', label: 'worker' },
          id: 'call_spawn',
        },
      ],
    };
  };
}

/**
 * Starts a gateway, asks for a sub-agent, and SIGKILLs the process while the child is busy: by
 * default when its model call after its tool call hangs, else once `busy` says so. The model
 * server is shared by the tests: only the requests since this start count.
 */
async function killMidChild(
  configPath: string,
  state: { killed: boolean },
  busy: (since: number) => Promise<boolean> | boolean = (since) =>
    model.received.slice(since).some((fake) => isChild(fake) && messagesOf(fake).at(-1)?.role === 'tool'),
): Promise<number> {
  const since = model.received.length;
  const first = await start(configPath);
  void request(first.url, 'POST', '/api/webchat/messages', { text: 'DELEGATE NOW', user: OWNER }).catch(
    () => {},
  );
  await pollUntil('the child busy in its run', () => busy(since));
  await pollUntil('the parent answered the spawn', async () =>
    (await transcript(first.url, SESSION)).some((entry) => entry.text === 'WORKER STARTED'),
  );
  const before = model.received.length;
  state.killed = true;
  first.gateway.child.kill('SIGKILL');
  await first.gateway.exited;
  return before;
}

/**
 * Starts the gateway again and checks that it ended the run instead of resuming it: the child's
 * model is not called, and the parent gets one `interrupted` announcement whose error says `why`.
 * Returns the parent's transcript.
 */
async function expectEndedAtStart(configPath: string, why: string): Promise<Entry[]> {
  const calls = childCalls();
  const { url } = await start(configPath);
  const entries = await parentAnswered(url);
  const announcements = announcementsIn(entries);
  expect(announcements).toHaveLength(1);
  expect(announcements[0]).toMatchObject({ status: 'interrupted' });
  expect(announcements[0]?.error).toContain(why);
  expect(childCalls()).toBe(calls);
  return entries;
}

describe('a sub-agent run cut short by SIGKILL', () => {
  it('is resumed from its transcript: one announcement of its result, one answer, one resumed line', async () => {
    const configPath = await setup('resume');
    const state = { killed: false };
    step = script(state);
    const before = await killMidChild(configPath, state);

    const second = await start(configPath);
    const chat = await openEvents({ url: second.url, token: PROCESS_TEST_TOKEN }, OWNER);
    const entries = await pollUntil('the parent answering the announcement', async () => {
      const all = await transcript(second.url, SESSION);
      return all.some((entry) => entry.role === 'assistant' && entry.text === 'PARENT GOT IT') && all;
    });
    // The child went on with what it had: one model call, which holds its task and its tool result.
    const after = model.received.slice(before).filter(isChild);
    expect(after).toHaveLength(1);
    const resumed = messagesOf(after[0] as FakeRequest);
    expect(resumed.filter((message) => contentOf(message).includes('CHILD TASK'))).toHaveLength(1);
    expect(
      resumed.filter((message) => message.role === 'tool').map((message) => message.tool_call_id),
    ).toEqual(['call_child']);
    // One announcement, of the child's result (not `interrupted`), answered once; no answer repeated.
    const announcements = entries.filter((entry) => entry.text.includes('Sub-agent announcement'));
    expect(announcements).toHaveLength(1);
    expect(announcements[0]?.text).toContain('"status":"success"');
    expect(announcements[0]?.text).toContain('CHILD RESULT');
    const answers = entries.filter((entry) => entry.role === 'assistant');
    expect(answers.map((entry) => entry.text).filter((text) => text !== '')).toEqual([
      'WORKER STARTED',
      'PARENT GOT IT',
    ]);
    // The chat: one resumed line, then the answer (a moment more for anything that would come twice).
    await pollUntil('the answer in the chat', () =>
      chat.events.some((event) => event.type === 'reply' && event.data.text === 'PARENT GOT IT'),
    );
    await sleep(500);
    const replies = chat.events.filter((event) => event.type === 'reply').map((event) => event.data.text);
    expect(replies.filter((text) => text === RESUMED_LINE)).toHaveLength(1);
    expect(replies.filter((text) => text === 'PARENT GOT IT')).toHaveLength(1);
    expect(replies.indexOf(RESUMED_LINE)).toBeLessThan(replies.indexOf('PARENT GOT IT'));
    const logged = second.gateway
      .logLines()
      .filter((line) => line.msg === 'sub-agent run resumed after a restart');
    expect(logged).toHaveLength(1);
  }, 120_000);

  it('is ended interrupted, not resumed, when its agent says resume: "off"', async () => {
    const configPath = await setup('off', { resume: 'off' });
    const state = { killed: false };
    step = script(state);
    const before = await killMidChild(configPath, state);

    const second = await start(configPath);
    const entries = await pollUntil('the parent answering the announcement', async () => {
      const all = await transcript(second.url, SESSION);
      return all.some((entry) => entry.role === 'assistant' && entry.text === 'PARENT GOT IT') && all;
    });
    const announcements = entries.filter((entry) => entry.text.includes('Sub-agent announcement'));
    expect(announcements).toHaveLength(1);
    expect(announcements[0]?.text).toContain('"status":"interrupted"');
    expect(announcements[0]?.text).toContain('agents.main.resume is \\"off\\"');
    // The child's model was not called again.
    expect(model.received.slice(before).filter(isChild)).toHaveLength(0);
  }, 120_000);

  it('repeats its read-only call, not its shell.exec (the model reads its outcome is unknown): one announcement', async () => {
    // The child runs as the owner (`runtimeAs`): shell.exec is an owner's tool.
    const configPath = await setup(
      'shell',
      { runtimeAs: `webchat:${OWNER}` },
      { tools: { toolpacks: ['core', 'shell'] }, approvals: { tools: { 'shell.exec': 'auto' } } },
    );
    const marker = path.join(dir, 'shell', 'shell-ran.txt');
    const state = { killed: false };
    step = script(state, {
      toolCalls: [
        { name: 'session_status', arguments: {}, id: 'call_status' },
        { name: 'shell.exec', arguments: { command: `echo ran >> ${marker}; sleep 60` }, id: 'call_shell' },
      ],
    });
    // Killed once the child's shell command has started (the read-only call ran before it).
    const before = await killMidChild(configPath, state, () =>
      readFile(marker, 'utf8').then((text) => text.length > 0),
    );

    const second = await start(configPath);
    const chat = await openEvents({ url: second.url, token: PROCESS_TEST_TOKEN }, OWNER);
    const entries = await parentAnswered(second.url);
    const announcements = announcementsIn(entries);
    expect(announcements).toHaveLength(1);
    expect(announcements[0]).toMatchObject({ status: 'success', result: 'CHILD RESULT' });
    // The child's model was called again once, with both calls' results: session_status ran again
    // (it names the child's session), shell.exec did not.
    const after = model.received.slice(before).filter(isChild);
    expect(after).toHaveLength(1);
    const results = new Map(
      messagesOf(after[0] as FakeRequest)
        .filter((message) => message.role === 'tool')
        .map((message) => [message.tool_call_id, contentOf(message)]),
    );
    expect([...results.keys()]).toEqual(['call_status', 'call_shell']);
    expect(results.get('call_status')).toContain(String(announcements[0]?.childSessionKey));
    expect(results.get('call_shell')).toMatch(
      /^Outcome unknown: the gateway restarted while this shell\.exec call/,
    );
    expect(await readFile(marker, 'utf8')).toBe('ran\n');
    const answers = entries.filter((entry) => entry.role === 'assistant' && entry.text !== '');
    expect(answers.map((entry) => entry.text)).toEqual(['WORKER STARTED', 'PARENT GOT IT']);
    const child = await transcript(second.url, String(announcements[0]?.childSessionKey));
    expect(child.filter((entry) => entry.role === 'tool').map((entry) => entry.toolName)).toEqual([
      'session_status',
      'shell.exec',
    ]);
    await pollUntil('the answer in the chat', () =>
      chat.events.some((event) => event.type === 'reply' && event.data.text === 'PARENT GOT IT'),
    );
    const replies = chat.events.filter((event) => event.type === 'reply').map((event) => event.data.text);
    expect(replies.filter((text) => text === RESUMED_LINE)).toHaveLength(1);
    const logged = second.gateway.logLines().filter((line) => line.msg === 'turn resumed after a restart');
    expect(logged.map((line) => [line.repeated, line.unknown])).toEqual([[1, 1]]);
  }, 120_000);

  it('is ended after its third SIGKILL, and its requester is told why, once', async () => {
    const configPath = await setup('thrice');
    const state = { killed: false };
    // The child's model call hangs each time: every start that resumes it is killed in it.
    step = script(state, { hang: true });
    await killMidChild(configPath, state, (since) => childCalls(since) > 0);
    for (let attempt = 2; attempt <= 3; attempt += 1) {
      // Counted before the start: a resumed child may call the model before the start is awaited.
      const calls = childCalls();
      const next = await start(configPath);
      await pollUntil(`the child's model call of attempt ${attempt}`, () => childCalls() > calls);
      await kill(next.gateway);
    }
    // The fourth start ends it without calling the child's model.
    const entries = await expectEndedAtStart(configPath, 'the gateway stopped each of the 3 times it ran');
    const answers = entries.filter((entry) => entry.role === 'assistant' && entry.text !== '');
    expect(answers.map((entry) => entry.text)).toEqual(['WORKER STARTED', 'PARENT GOT IT']);
  }, 120_000);

  it('is ended, not resumed, when it was interrupted longer ago than agentLoop.resumeWithinMs', async () => {
    const configPath = await setup('stale', {}, { agentLoop: { resumeWithinMs: 1000 } });
    const state = { killed: false };
    step = script(state, { hang: true });
    await killMidChild(configPath, state, (since) => childCalls(since) > 0);
    await sleep(1500); // past the 1 s limit
    await expectEndedAtStart(configPath, 'longer than agentLoop.resumeWithinMs (1 s)');
  }, 120_000);
});
