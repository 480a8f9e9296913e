import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import type { InboundMessage } from '../../src/base/messages/index.js';
import {
  type ChannelMemory,
  type ChannelSupervisor,
  createChannelSupervisor,
  createLocalMemory,
} from '../../src/surfaces/channels/index.js';
import type { SlackAdapter, SlackConfig } from '../../src/surfaces/channels/slack/index.js';
import { type FakeSlack, startFakeSlack } from '../fakes/fake-slack.js';
import { createTestSlackAdapter } from '../fakes/slack-test-adapter.js';

/**
 * Deaf sockets (issue 32 item 4): a Socket Mode connection that stays open, answers pings and
 * hears nothing. The fake Slack's `deafen` drops every envelope meant for the open connection
 * while the messages still show in `conversations.history`, as Slack does with a stale connection.
 */

const LIVENESS = { deafAfterMs: 1500, checkIntervalMs: 500 };
/** The longest a deaf connection may go unnoticed: silent for deafAfterMs, then two checks agree. */
const NOTICED_WITHIN_MS = LIVENESS.deafAfterMs + 2 * LIVENESS.checkIntervalMs;
const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });

interface Harness {
  fake: FakeSlack;
  adapter: SlackAdapter;
  supervisor: ChannelSupervisor;
  inbound: InboundMessage[];
}

let current: Harness | undefined;

afterEach(async () => {
  await current?.supervisor.stop();
  await current?.fake.close();
  current = undefined;
});

async function setup(
  config: Partial<SlackConfig> = {},
  echoPosts = true,
  parts: { fake?: FakeSlack; memory?: ChannelMemory } = {},
): Promise<Harness> {
  const fake = parts.fake ?? (await startFakeSlack({ echoPosts }));
  const adapter = createTestSlackAdapter(
    fake,
    { liveness: LIVENESS, ...config },
    parts.memory === undefined ? {} : { memory: parts.memory },
  );
  const supervisor = createChannelSupervisor({
    channels: [{ adapter, reconnect: { initialDelayMs: 100, maxDelayMs: 1000, refusedDelayMs: 60_000 } }],
    logger,
  });
  const inbound: InboundMessage[] = [];
  await supervisor.start(async (message, options) => {
    inbound.push(message);
    options?.accepted?.();
    const route = { channel: 'slack', chatType: message.chatType, chatId: message.chatId } as const;
    await adapter.send(message.threadId === undefined ? route : { ...route, threadId: message.threadId }, {
      id: `r${inbound.length}`,
      text: `re: ${message.text}`,
    });
    return { sessionKey: 'test', replies: [] };
  });
  current = { fake, adapter, supervisor, inbound };
  return current;
}

/** A message `ts` as Slack writes them: seconds since the epoch, now, to the microsecond. */
let sequence = 0;
const nowTs = () => `${(Date.now() / 1000).toFixed(3)}${String(++sequence % 1000).padStart(3, '0')}`;
const said = (ts: string, text: string) => ({
  type: 'message',
  channel: 'C1',
  channel_type: 'channel',
  user: 'U1',
  text,
  ts,
});
const posted = (fake: FakeSlack, text: string, timeoutMs = 5_000) =>
  fake.waitForCall('chat.postMessage', (call) => call.args.text === text, timeoutMs);

describe('Slack Socket Mode liveness', () => {
  it('finds a connection that hears nothing while Slack shows a message, opens a new one, and the message is answered', async () => {
    const { fake, supervisor, inbound } = await setup();
    await fake.deliver(said(nowTs(), '<@UBOT> before'));
    await posted(fake, 're: before');
    fake.deafen();
    const missed = fake.deliver(said(nowTs(), '<@UBOT> while deaf'));
    // Slack delivers the unacknowledged event again once a connection hears.
    await posted(fake, 're: while deaf', NOTICED_WITHIN_MS + 5_000);
    await missed;
    expect(fake.callsTo('apps.connections.open')).toHaveLength(2);
    expect(inbound.map((message) => message.text)).toEqual(['before', 'while deaf']);
    const [detail] = supervisor.details();
    expect(detail).toMatchObject({ name: 'slack', state: 'connected', deafReconnects: 1 });
    expect(detail?.lastDeaf?.reason).toMatch(/nothing arrived .* C1/);
  }, 30_000);

  it('leaves a quiet workspace alone: no messages, or only its own posts, is not deafness', async () => {
    const { fake, adapter, supervisor } = await setup();
    await fake.deliver(said(nowTs(), '<@UBOT> before'));
    await posted(fake, 're: before');
    fake.deafen();
    // The bot's own post (a scheduled message) is never heard back as a sign of life either.
    await adapter.send(
      { channel: 'slack', chatType: 'channel', chatId: 'C1' },
      { id: 'n1', text: 'on schedule' },
    );
    // Several checks ran (each asked Slack) and found nothing to miss.
    await vi.waitFor(() => expect(fake.callsTo('conversations.history').length).toBeGreaterThanOrEqual(6), {
      timeout: NOTICED_WITHIN_MS * 6 + 5_000,
    });
    expect(fake.callsTo('conversations.history').length).toBeGreaterThan(0);
    expect(fake.callsTo('apps.connections.open')).toHaveLength(1);
    expect(supervisor.details()[0]).toMatchObject({ state: 'connected' });
    expect(supervisor.details()[0]?.deafReconnects).toBeUndefined();
  }, 30_000);

  it('in a channel it hears only mentions of (no message events), takes only a missed mention as evidence', async () => {
    // Not subscribed to message events: the bot's own posts do not come back either.
    const { fake, supervisor, inbound } = await setup({}, false);
    const mention = (text: string) => ({ ...said(nowTs(), `<@UBOT> ${text}`), type: 'app_mention' });
    await fake.deliver(mention('before'));
    await posted(fake, 're: before');
    // Chatter the app is not subscribed to: Slack shows it, and never sends it.
    fake.postWithoutEvent(said(nowTs(), 'lunch at noon?'));
    const reads = fake.callsTo('conversations.history').length;
    // Several checks, each asking Slack: no evidence.
    await vi.waitFor(
      () => expect(fake.callsTo('conversations.history').length).toBeGreaterThanOrEqual(reads + 6),
      {
        timeout: NOTICED_WITHIN_MS * 6 + 5_000,
      },
    );
    expect(fake.callsTo('apps.connections.open')).toHaveLength(1);
    expect(supervisor.details()[0]?.deafReconnects).toBeUndefined();
    // A mention it never got is.
    fake.deafen();
    const missed = fake.deliver(mention('while deaf'));
    await posted(fake, 're: while deaf', NOTICED_WITHIN_MS + 5_000);
    await missed;
    expect(fake.callsTo('apps.connections.open')).toHaveLength(2);
    expect(inbound.map((message) => message.text)).toEqual(['before', 'while deaf']);
  }, 60_000);

  it('after a restart, a connection deaf from its start is found by chatter in a channel that sent message events before', async () => {
    const memory = createLocalMemory();
    const first = await setup({}, true, { memory });
    await first.fake.deliver(said(nowTs(), '<@UBOT> before'));
    await posted(first.fake, 're: before');
    await first.supervisor.stop();
    // The next process: the same store, a connection that hears nothing from the start.
    const { fake, supervisor } = await setup({}, true, { fake: first.fake, memory });
    fake.deafen();
    const missed = fake.deliver(said(nowTs(), 'lunch at noon, everyone?'));
    await vi.waitFor(() => expect(supervisor.details()[0]?.deafReconnects).toBe(1), {
      timeout: NOTICED_WITHIN_MS + 5_000,
    });
    await missed;
    expect(fake.callsTo('apps.connections.open')).toHaveLength(3);
  }, 30_000);

  it('never checks with deafAfterMs 0', async () => {
    const { fake, supervisor } = await setup({ liveness: { deafAfterMs: 0, checkIntervalMs: 500 } });
    await fake.deliver(said(nowTs(), '<@UBOT> before'));
    await posted(fake, 're: before');
    fake.deafen();
    void fake.deliver(said(nowTs(), '<@UBOT> while deaf')).catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, NOTICED_WITHIN_MS * 2));
    expect(fake.callsTo('conversations.history')).toHaveLength(0);
    expect(fake.callsTo('apps.connections.open')).toHaveLength(1);
    expect(supervisor.details()[0]?.deafReconnects).toBeUndefined();
  }, 30_000);
});
