import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import { createInbox } from '../../src/engine/routing/inbox.js';
import { createSessionStore } from '../../src/records/sessions/index.js';
import { createStore } from '../../src/records/store/index.js';
import { eventCallback, type FakeSlack, postSignedEvent, startFakeSlack } from '../fakes/fake-slack.js';
import { createGatedRunner } from '../fakes/gated-runner.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

/**
 * When Slack is told an event was received: the real Bolt (HTTP mode through the gateway's
 * /slack/events, and Socket Mode) against the fake Slack, with `reactions.add` held by the fake
 * (a slow or rate-limited Slack) and every turn held by the runner. Slack's acknowledgement (the
 * HTTP 200, the envelope ack) must come only once the message is in the store's inbox, and never
 * wait for the turn.
 */

let gateway: TestGateway | undefined;
let fake: FakeSlack | undefined;
afterEach(async () => {
  await gateway?.dispose();
  await fake?.close();
  gateway = undefined;
  fake = undefined;
});

const SIGNING_SECRET = 'ack-signing-secret-31';

const mention = (ts: string, text: string) => ({
  type: 'message',
  channel: 'C1',
  channel_type: 'channel',
  user: 'U1',
  text: `<@UBOT> ${text}`,
  ts,
});

/** The texts waiting in the gateway's inbox, read from its SQLite file by a second connection. */
async function inboxTexts(dir: string): Promise<string[]> {
  const logger = createLogger({ level: 'silent' }).logger;
  const store = await createStore({ url: undefined, stateDir: path.join(dir, 'data'), logger });
  try {
    return (await createInbox({ store }).list()).map((item) => item.entry.text);
  } finally {
    await store.close();
  }
}

function slackConfig(fake: FakeSlack, mode: 'http' | 'socket') {
  return {
    channels: {
      slack: {
        botToken: 'xoxb-ack-test',
        apiUrl: fake.apiUrl,
        ...(mode === 'http' ? { mode: 'http', signingSecret: SIGNING_SECRET } : { appToken: 'xapp-ack' }),
      },
    },
  };
}

async function setup(mode: 'http' | 'socket') {
  fake = await startFakeSlack();
  const gated = createGatedRunner();
  gateway = await startTestGateway({ createRunner: () => gated.runner, config: slackConfig(fake, mode) });
  if (mode === 'socket') await fake.connected();
  return { fake, gateway, gated };
}

describe("Slack's acknowledgement of an event", () => {
  it('HTTP mode: the 200 comes once the message is in the inbox, before the eyes reaction or the turn; a retry is answered once', async () => {
    const { fake, gateway, gated } = await setup('http');
    const releaseReaction = fake.hold('reactions.add');
    const url = `${gateway.url}/slack/events`;
    const body = eventCallback(mention('70.1', 'kept before the ack'), 'EvAck1');
    expect(await postSignedEvent(url, body, SIGNING_SECRET)).toBe(200);
    expect(await inboxTexts(gateway.dir)).toEqual(['kept before the ack']);
    // Slack's retry of the same event is acknowledged and not stored again.
    expect(await postSignedEvent(url, body, SIGNING_SECRET, { retryNum: 1 })).toBe(200);
    await gated.waitForOpen(1);
    releaseReaction();
    gated.releaseNext();
    await fake.waitForCall('chat.postMessage', (call) => call.args.thread_ts === '70.1');
    await fake.waitForCall('reactions.remove', (call) => call.args.timestamp === '70.1');
    expect(gated.turns.map((turn) => turn.messages.map((message) => message.text))).toEqual([
      ['kept before the ack'],
    ]);
    expect(fake.callsTo('chat.postMessage')).toHaveLength(1);
    // The store answered in time: no acknowledgement went out on the budget alone.
    expect(gateway.logLines.filter((line) => line.includes('acknowledged before'))).toEqual([]);
  });

  it('Socket Mode: the envelope ack comes once the message is in the inbox, before the eyes reaction or the turn; a retry is answered once', async () => {
    const { fake, gateway, gated } = await setup('socket');
    const releaseReaction = fake.hold('reactions.add');
    await fake.deliver(mention('71.1', 'kept before the envelope ack'), { eventId: 'EvAck2' });
    expect(await inboxTexts(gateway.dir)).toEqual(['kept before the envelope ack']);
    await fake.deliver(mention('71.1', 'kept before the envelope ack'), {
      eventId: 'EvAck2',
      retryAttempt: 1,
    });
    await gated.waitForOpen(1);
    releaseReaction();
    gated.releaseNext();
    await fake.waitForCall('chat.postMessage', (call) => call.args.thread_ts === '71.1');
    expect(gated.turns).toHaveLength(1);
    expect(fake.callsTo('chat.postMessage')).toHaveLength(1);
    expect(gateway.logLines.filter((line) => line.includes('acknowledged before'))).toEqual([]);
    expect(fake.badAcks).toEqual([]);
  });
});

describe('a SIGKILL between storing a Slack message and remembering its event', () => {
  it("answers Slack's redeliveries of messages the last process stored once: while waiting in the inbox and after their answer", async () => {
    const { fake, gateway: first, gated } = await setup('http');
    await first.stop();
    // What a SIGKILL leaves right after the inbox write: the messages stored, their events not
    // remembered, and Slack (never acknowledged) delivering them again.
    const logger = createLogger({ level: 'silent' }).logger;
    const store = await createStore({ url: undefined, stateDir: path.join(first.dir, 'data'), logger });
    const inbox = createInbox({ store });
    const sessions = createSessionStore({ store });
    for (const [ts, text] of [
      ['72.1', 'first stored'],
      ['72.2', 'second stored'],
    ] as const) {
      const sessionKey = `agent:main:slack:channel:C1:thread:${ts}`;
      const route = { channel: 'slack' as const, chatType: 'channel' as const, chatId: 'C1', threadId: ts };
      await sessions.ensure(sessionKey, { agentId: 'main', route });
      await inbox.add({
        sessionKey,
        agentId: 'main',
        route,
        entry: { role: 'user', text, senderId: 'slack:U1', messageId: ts },
      });
    }
    await store.close();
    gateway = await startTestGateway({
      dir: first.dir,
      createRunner: () => gated.runner,
      config: slackConfig(fake, 'http'),
    });
    const url = `${gateway.url}/slack/events`;
    const redeliver = (ts: string, text: string, retryNum: number) =>
      postSignedEvent(url, eventCallback(mention(ts, text), `Ev${ts}`), SIGNING_SECRET, { retryNum });

    // Still waiting in the inbox (its turn is held): acknowledged, not stored again.
    expect(await redeliver('72.1', 'first stored', 1)).toBe(200);
    expect((await inboxTexts(gateway.dir)).sort()).toEqual(['first stored', 'second stored']);
    for (const ts of ['72.1', '72.2']) {
      await gated.waitForOpen(1);
      gated.releaseNext();
      await fake.waitForCall('chat.postMessage', (call) => call.args.thread_ts === ts);
    }
    await expect.poll(() => inboxTexts(gateway?.dir ?? '')).toEqual([]);
    // Answered already (in its transcript): acknowledged, not stored again.
    expect(await redeliver('72.2', 'second stored', 2)).toBe(200);
    expect(await inboxTexts(gateway.dir)).toEqual([]);
    expect(gated.turns).toHaveLength(2);
    expect(
      fake
        .callsTo('chat.postMessage')
        .map((call) => call.args.thread_ts)
        .sort(),
    ).toEqual(['72.1', '72.2']);
  });
});
