import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import { createInbox } from '../../src/engine/routing/inbox.js';
import { createSessionStore } from '../../src/records/sessions/index.js';
import { createStore } from '../../src/records/store/index.js';
import { type FakeSlack, startFakeSlack } from '../fakes/fake-slack.js';
import { createGatedRunner } from '../fakes/gated-runner.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

/**
 * Messages that arrive while a restart drains: the real Bolt (Socket Mode) against the fake
 * Slack, and a runner that holds each turn until the test releases it. Slack has acknowledged
 * such a message before the gateway sees it, so the gateway must keep it and answer it later.
 */

let gateway: TestGateway | undefined;
let fake: FakeSlack | undefined;
afterEach(async () => {
  await gateway?.dispose();
  await fake?.close();
  gateway = undefined;
  fake = undefined;
});

const mention = (ts: string, text: string) => ({
  type: 'message',
  channel: 'C1',
  channel_type: 'channel',
  user: 'U1',
  text: `<@UBOT> ${text}`,
  ts,
});

const RESTARTING = /^The gateway is restarting: this message is kept and will be answered/;

async function setup(drainTimeoutMs: number) {
  fake = await startFakeSlack({ echoPosts: true });
  const gated = createGatedRunner();
  gateway = await startTestGateway({
    config: {
      gateway: { drainTimeoutMs },
      channels: { slack: { botToken: 'xoxb-drain', appToken: 'xapp-drain', apiUrl: fake.apiUrl } },
    },
    createRunner: () => gated.runner,
  });
  await fake.connected();
  return { fake, gateway, gated };
}

const draining = (target: TestGateway) => () =>
  target.logLines.some((line) => line.includes('"draining: new messages are kept for the next start"'));

describe('a restart that drains', () => {
  it('keeps a Slack message that arrives meanwhile, says so in its thread, and answers it after the restart', async () => {
    const { fake, gateway, gated } = await setup(20_000);
    await fake.deliver(mention('40.1', 'a long job'));
    await gated.waitForOpen(1);
    const restarted = gateway.restart();
    await expect.poll(draining(gateway)).toBe(true);
    await fake.deliver(mention('40.2', 'are you there?'));
    const notice = await fake.waitForCall('chat.postMessage', (call) => call.args.thread_ts === '40.2');
    expect(notice.args.text).toMatch(RESTARTING);
    gated.releaseNext();
    await restarted;
    await fake.connected();
    await gated.waitForOpen(1);
    expect(gated.turns.at(-1)?.messages.map((entry) => entry.text)).toEqual(['are you there?']);
    gated.releaseNext();
    const answer = await fake.waitForCall(
      'chat.postMessage',
      (call) => call.args.thread_ts === '40.2' && call.args.text?.startsWith('answered:') === true,
    );
    expect(answer.args.text).toBe('answered: are you there?');
    expect(gated.turns).toHaveLength(2);
  });

  it('answers after the restart a message whose turn the stop timeout cut short', async () => {
    const { fake, gateway, gated } = await setup(50);
    await fake.deliver(mention('41.1', 'slow question'));
    await gated.waitForOpen(1);
    await gateway.restart();
    expect(gated.turns[0]?.signal.aborted).toBe(true);
    await gated.waitForOpen(1);
    expect(gated.turns[1]?.messages.map((entry) => entry.text)).toEqual(['slow question']);
    gated.releaseNext();
    const answer = await fake.waitForCall(
      'chat.postMessage',
      (call) => call.args.thread_ts === '41.1' && call.args.text?.startsWith('answered:') === true,
    );
    expect(answer.args.text).toBe('answered: slow question');
    // Once answered it is not answered again by a later start.
    await gateway.restart();
    await fake.connected();
    await fake.deliver(mention('41.2', '/whoami'));
    await fake.waitForCall('chat.postMessage', (call) => call.args.thread_ts === '41.2');
    expect(gated.turns).toHaveLength(2);
  });
});

describe('a crash between two writes', () => {
  it('answers once a message whose entry reached the transcript before its inbox record said so', async () => {
    const gated = createGatedRunner();
    gateway = await startTestGateway({ createRunner: () => gated.runner });
    const first = gateway.send('first');
    await gated.waitForOpen(1);
    gated.releaseNext();
    await first;
    await gateway.stop();
    // The state a SIGKILL leaves right after the turn wrote the entry and before the inbox noted it.
    const key = 'agent:main:webchat:direct:local';
    const route = { channel: 'webchat' as const, chatType: 'direct' as const, chatId: 'local' };
    const entry = {
      role: 'user' as const,
      text: 'half done',
      senderId: 'webchat:local',
      messageId: 'm-crash',
    };
    const logger = createLogger({ level: 'silent' }).logger;
    const store = await createStore({ url: undefined, stateDir: path.join(gateway.dir, 'data'), logger });
    await createSessionStore({ store }).append(key, entry);
    await createInbox({ store }).add({ sessionKey: key, agentId: 'main', route, entry });
    await store.close();

    gateway = await startTestGateway({ dir: gateway.dir, createRunner: () => gated.runner });
    await gated.waitForOpen(1);
    expect(gated.turns.at(-1)?.messages.map((message) => message.text)).toEqual(['half done']);
    gated.releaseNext();
    const texts = async () =>
      ((await gateway?.request('GET', `/api/sessions/${key}/transcript`))?.body.entries ?? []).map(
        (stored: { text: string }) => stored.text,
      );
    await expect.poll(texts).toEqual(['first', 'answered: first', 'half done', 'answered: half done']);
  });
});
