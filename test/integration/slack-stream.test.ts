import { afterEach, describe, expect, it } from 'vitest';
import { toMrkdwn } from '../../src/surfaces/channels/slack/blocks.js';
import type { FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeOpenAIServer } from '../fakes/fake-openai-server.js';
import { type FakeSlack, type FakeSlackCall, startFakeSlack } from '../fakes/fake-slack.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

/**
 * Streaming replies on Slack through the whole gateway: the real Bolt (Socket Mode) against the
 * fake Slack, the real OpenAI client against the fake model streaming its answer slowly.
 */

let gateway: TestGateway | undefined;
let fake: FakeSlack | undefined;
let model: FakeModelServer | undefined;
afterEach(async () => {
  await gateway?.dispose();
  await fake?.close();
  await model?.close();
  gateway = undefined;
  fake = undefined;
  model = undefined;
});

/**
 * Slack's budget: one post or update per message per second. Measured where the fake receives the
 * calls, so less the jitter of one local request.
 */
const UPDATE_GAP_MS = 900;
const ANSWER = [
  'Here is the **plan** for the deploy:',
  '',
  '1. build the image',
  '2. run the _migrations_',
  '',
  '```sh',
  'make deploy ENV=prod',
  '```',
  '',
  'Then watch the dashboards for ten minutes.',
].join('\n');

async function setup(slack: Record<string, unknown> = {}) {
  model = await startFakeOpenAIServer();
  fake = await startFakeSlack({ echoPosts: true });
  gateway = await startTestGateway({
    config: {
      owners: ['webchat:local', 'slack:U1'],
      models: { fake: { provider: 'openai', model: 'fake-1', baseUrl: model.url, apiKey: 'sk-stream-01' } },
      agents: { main: { model: 'fake' } },
      channels: {
        slack: { botToken: 'xoxb-stream', appToken: 'xapp-stream', apiUrl: fake.apiUrl, ...slack },
      },
    },
  });
  await fake.connected();
  return { fake, model };
}

const mention = (ts: string, text: string) => ({
  type: 'message',
  channel: 'C1',
  channel_type: 'channel',
  user: 'U1',
  text: `<@UBOT> ${text}`,
  ts,
});

/** The bot's posts and updates in thread `threadTs`, in order (updates by the posts' ts). */
function callsIn(fake: FakeSlack, threadTs: string): { posts: FakeSlackCall[]; updates: FakeSlackCall[] } {
  const posts = fake.callsTo('chat.postMessage').filter((call) => call.args.thread_ts === threadTs);
  const mine = new Set(
    [...fake.messages.values()].filter((message) => message.threadTs === threadTs).map((m) => m.ts),
  );
  const updates = fake.callsTo('chat.update').filter((call) => mine.has(call.args.ts ?? ''));
  return { posts, updates };
}

async function finalText(fake: FakeSlack, threadTs: string, expected: string): Promise<void> {
  await expect
    .poll(() => [...fake.messages.values()].find((message) => message.threadTs === threadTs)?.text, {
      timeout: 15_000,
    })
    .toBe(expected);
}

describe('streaming replies on Slack', () => {
  it('posts one placeholder, updates it at most once a second as the text streams, and ends with the whole answer as mrkdwn', async () => {
    const { fake, model } = await setup();
    model.push({ text: ANSWER, chunks: 8, chunkDelayMs: 250 });
    await fake.deliver(mention('30.1', 'how do we deploy?'));
    await finalText(fake, '30.1', toMrkdwn(ANSWER));
    const { posts, updates } = callsIn(fake, '30.1');
    expect(posts).toHaveLength(1);
    expect(updates.length).toBeGreaterThanOrEqual(2);
    // The placeholder showed the first part of the answer, not the whole of it.
    expect(ANSWER.length).toBeGreaterThan(posts[0]?.args.text?.length ?? Infinity);
    const times = [posts[0], ...updates].map((call) => call?.at ?? 0);
    for (let index = 1; index < times.length; index++)
      expect((times[index] ?? 0) - (times[index - 1] ?? 0)).toBeGreaterThanOrEqual(UPDATE_GAP_MS);
    expect(toMrkdwn(ANSWER)).toContain('*plan*');
    expect(toMrkdwn(ANSWER)).toContain('```\nmake deploy ENV=prod\n```');
  });

  it('waits out a 429 on an update (Retry-After) and still ends with the whole answer', async () => {
    const { fake, model } = await setup();
    fake.rateLimit('chat.update', 1, 2);
    model.push({ text: ANSWER, chunks: 6, chunkDelayMs: 300 });
    await fake.deliver(mention('31.1', 'how do we deploy?'));
    await finalText(fake, '31.1', toMrkdwn(ANSWER));
    const updates = fake.callsTo('chat.update');
    // The first update was refused with a 429; the next came after its Retry-After (2 s), not
    // after the usual second.
    expect(updates.length).toBeGreaterThanOrEqual(2);
    expect((updates[1]?.at ?? 0) - (updates[0]?.at ?? 0)).toBeGreaterThanOrEqual(2000 - 100);
    expect(callsIn(fake, '31.1').posts).toHaveLength(1);
  });

  it('shows a tool status line while a tool runs, which the answer then replaces', async () => {
    const { fake, model } = await setup();
    model.push({ toolCalls: [{ name: 'session_status', arguments: {} }] });
    model.push({ text: 'The session is idle.', chunks: 2 });
    await fake.deliver(mention('32.1', 'status?'));
    await finalText(fake, '32.1', 'The session is idle.');
    const { posts } = callsIn(fake, '32.1');
    expect(posts).toHaveLength(1);
    expect(posts[0]?.args.text).toBe('running session_status…');
  });

  it('with `stream: false` posts the complete answer once and updates nothing', async () => {
    const { fake, model } = await setup({ stream: false });
    model.push({ text: ANSWER, chunks: 5, chunkDelayMs: 100 });
    await fake.deliver(mention('33.1', 'how do we deploy?'));
    await finalText(fake, '33.1', toMrkdwn(ANSWER));
    expect(callsIn(fake, '33.1').posts.map((call) => call.args.text)).toEqual([toMrkdwn(ANSWER)]);
    expect(fake.callsTo('chat.update')).toEqual([]);
  });
});
