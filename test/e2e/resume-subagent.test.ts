import { mkdir } from 'node:fs/promises';
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
// gateway, the fake model server. The child's turn goes on from its transcript after the next
// start (not ended `interrupted`), its requester gets one announcement of its real result and
// answers it once, and the chat sees one "Resumed after a restart" line, not a repeated answer.
// With `resume: "off"` the run is ended `interrupted`, as before.

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

async function setup(name: string, agent: Record<string, unknown> = {}): Promise<string> {
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
  });
}

async function start(configPath: string): Promise<{ gateway: GatewayProcess; url: string }> {
  const gateway = spawnGateway(['start', '--config', configPath], { cwd: REPO_ROOT });
  return { gateway, url: await gateway.waitForReady() };
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

/**
 * The parent spawns a child and answers "WORKER STARTED"; the child calls `session_status`
 * (restart-safe) and then its model call hangs until the kill; after it, the child answers
 * "CHILD RESULT". The parent answers an announcement with "PARENT GOT IT".
 */
function script(state: { killed: boolean }) {
  return (fake: FakeRequest): FakeStep => {
    const last = messagesOf(fake).at(-1);
    if (isChild(fake)) {
      if (last?.role !== 'tool')
        return { toolCalls: [{ name: 'session_status', arguments: {}, id: 'call_child' }] };
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

/** Starts a gateway, asks for a sub-agent, and SIGKILLs the process while the child's model call hangs. */
async function killMidChild(configPath: string, state: { killed: boolean }): Promise<number> {
  const first = await start(configPath);
  void request(first.url, 'POST', '/api/webchat/messages', { text: 'DELEGATE NOW', user: OWNER }).catch(
    () => {},
  );
  await pollUntil('the child hanging in its second model call', () =>
    model.received.some((fake) => isChild(fake) && messagesOf(fake).at(-1)?.role === 'tool'),
  );
  await pollUntil('the parent answered the spawn', async () =>
    (await transcript(first.url, SESSION)).some((entry) => entry.text === 'WORKER STARTED'),
  );
  const before = model.received.length;
  state.killed = true;
  first.gateway.child.kill('SIGKILL');
  await first.gateway.exited;
  return before;
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
    // The child's model was not called again.
    expect(model.received.slice(before).filter(isChild)).toHaveLength(0);
  }, 120_000);
});
