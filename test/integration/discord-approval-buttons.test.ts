import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import type {
  DeliveryRoute,
  DispatchResult,
  InboundMessage,
  ReplyAction,
} from '../../src/base/messages/index.js';
import { createDiscordAdapter, type DiscordConfig } from '../../src/surfaces/channels/discord/index.js';
import type { ChannelAdapter } from '../../src/surfaces/channels/index.js';
import { createFakeDiscord, type FakeDiscord } from '../fakes/fake-discord.js';

/**
 * Buttons on Discord, transport only: the real discord.js against the fake Discord, with a handler
 * of the test's own in place of the router. A reply's actions become message components; a click
 * comes as a real INTERACTION_CREATE and is acknowledged, dispatched and answered in place.
 */

const TOKEN = 'fake-discord-buttons-token';
const GUILD = '900000000000000201';
const CHANNEL = '910000000000000201';
const THREAD = '920000000000000201';
const ALICE = '930000000000000201';
const BOB = '930000000000000202';

const APPROVE: ReplyAction = { label: 'Approve', value: 'approval:r1:approve:h1', style: 'primary' };
const DENY: ReplyAction = { label: 'Deny', value: 'approval:r1:deny:h1', style: 'danger' };

const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });

let fake: FakeDiscord;
let adapter: ChannelAdapter;
let clicks: InboundMessage[];
/** What the handler answers a click with; it may wait or throw. */
let answerClick: (message: InboundMessage) => Promise<DispatchResult>;

const channelRoute: DeliveryRoute = { channel: 'discord', chatType: 'channel', chatId: CHANNEL };
const answered = (text: string, actions?: ReplyAction[]): DispatchResult => ({
  sessionKey: 'test',
  replies: [{ id: 'answer', text, ...(actions === undefined ? {} : { actions }) }],
});

function configFor(): DiscordConfig {
  return {
    token: TOKEN,
    apiBase: fake.apiBase,
    guilds: [GUILD],
    requireMention: true,
    channels: {},
    dmPolicy: 'allowlist',
    allowFrom: [ALICE],
    allowBots: false,
    maxBotTurns: 3,
    reconnect: { initialDelayMs: 1000, maxDelayMs: 300_000, refusedDelayMs: 1_800_000 },
  };
}

const REQUEST_TEXT = 'Run shell.exec? /approve K7Q2XD or /deny K7Q2XD';
/** What a clicked request shows: its text, and the answer under it. */
const answeredWith = (answer: string) => `${REQUEST_TEXT}\n\n${answer}`;

/** Posts a request with Approve and Deny on `route`; returns the posted message's id. */
async function postRequest(route: DeliveryRoute = channelRoute): Promise<string> {
  const before = fake.posted.length;
  await adapter.send(route, {
    id: 'request',
    text: REQUEST_TEXT,
    actions: [APPROVE, DENY],
  });
  expect(fake.posted).toHaveLength(before + 1);
  return fake.lastPostId() as string;
}

beforeEach(async () => {
  fake = await createFakeDiscord({
    token: TOKEN,
    guilds: [{ id: GUILD, channels: [CHANNEL], threads: [{ id: THREAD, parentId: CHANNEL }] }],
  });
  clicks = [];
  answerClick = async (message) => answered(`Approved by ${message.senderId}`);
  adapter = createDiscordAdapter({ config: configFor(), logger });
  await adapter.start(async (message) => {
    if (message.action === undefined) return { sessionKey: 'test', replies: [] };
    clicks.push(message);
    return answerClick(message);
  });
});

afterEach(async () => {
  await adapter.stop();
  await fake.close();
  expect(fake.unknown).toEqual([]);
});

describe('discord buttons', () => {
  it('renders actions as one row of buttons whose custom_id is the value, on the last part', async () => {
    await adapter.send(channelRoute, {
      id: 'long',
      text: `${'a'.repeat(1500)}\n\n${'b'.repeat(1500)}`,
      actions: [APPROVE, DENY, { label: 'Always', value: 'approval:r1:always:h1' }],
    });
    expect(fake.posted.map((post) => post.buttons)).toEqual([
      undefined,
      [
        { label: 'Approve', customId: APPROVE.value, style: 1 },
        { label: 'Deny', customId: DENY.value, style: 4 },
        { label: 'Always', customId: 'approval:r1:always:h1', style: 2 },
      ],
    ]);
    expect(fake.posted[1]?.content).toBe('b'.repeat(1500));
  });

  it('drops a button Discord would refuse and still posts the message with the others', async () => {
    await adapter.send(channelRoute, {
      id: 'odd',
      text: 'Run it? /approve K7Q2XD',
      actions: [APPROVE, { label: 'Too long', value: 'x'.repeat(101) }, { ...APPROVE, label: 'Again' }],
    });
    expect(fake.posted[0]).toEqual({
      channelId: CHANNEL,
      content: 'Run it? /approve K7Q2XD',
      buttons: [{ label: 'Approve', customId: APPROVE.value, style: 1 }],
    });
  });

  it('acknowledges a click before the dispatch ends, dispatches it as the user, then edits the message', async () => {
    const messageId = await postRequest();
    let release: () => void = () => undefined;
    const seenAtDispatch: string[][] = [];
    answerClick = async (message) => {
      seenAtDispatch.push(fake.interactions.map((record) => record.kind));
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return answered(`Approved by ${message.senderId} — running shell.exec`);
    };
    const interactionId = fake.click({ messageId, userId: ALICE, customId: APPROVE.value });
    await vi.waitFor(() => expect(clicks).toHaveLength(1));
    // Acknowledged (a deferred update, type 6) before the handler was even called, and still
    // nothing else while the handler has not answered.
    expect(seenAtDispatch).toEqual([['callback']]);
    expect(fake.interactions).toEqual([{ kind: 'callback', interactionId, type: 6 }]);
    expect(clicks[0]).toEqual({
      channel: 'discord',
      chatType: 'channel',
      chatId: CHANNEL,
      senderId: `discord:${ALICE}`,
      text: '',
      messageId: interactionId,
      guildId: GUILD,
      action: APPROVE.value,
    });
    release();
    await vi.waitFor(() => expect(fake.interactions).toHaveLength(2));
    const text = `Approved by discord:${ALICE} — running shell.exec`;
    expect(fake.interactions[1]).toEqual({
      kind: 'edit',
      interactionId,
      messageId,
      content: answeredWith(text),
      buttons: [],
    });
    expect(fake.message(messageId)).toEqual({ content: answeredWith(text), buttons: [] });
  });

  it('keeps buttons the answer carries (a refusal that leaves the request open)', async () => {
    const messageId = await postRequest();
    answerClick = async () => answered('Refused: discord:BOB is not an approver', [APPROVE, DENY]);
    fake.click({ messageId, userId: BOB, customId: DENY.value });
    await vi.waitFor(() => expect(fake.interactions.map((record) => record.kind)).toContain('edit'));
    expect(clicks[0]?.senderId).toBe(`discord:${BOB}`);
    expect(fake.message(messageId)?.buttons.map((button) => button.customId)).toEqual([
      APPROVE.value,
      DENY.value,
    ]);
    // The buttons are still there to click.
    fake.click({ messageId, userId: ALICE, customId: APPROVE.value });
    await vi.waitFor(() => expect(clicks).toHaveLength(2));
  });

  it('dispatches a replayed interaction once: Discord refuses its second acknowledgement', async () => {
    const messageId = await postRequest();
    const first = fake.click({ messageId, userId: ALICE, customId: APPROVE.value });
    await vi.waitFor(() =>
      expect(fake.interactions.map((record) => record.kind)).toEqual(['callback', 'edit']),
    );
    fake.click({ messageId, userId: ALICE, customId: APPROVE.value, replayOf: first });
    await vi.waitFor(() => expect(fake.interactions.map((record) => record.kind)).toContain('refused'));
    // A later click (its buttons are gone: sent as a tampered client would) goes through the whole
    // round trip; a replay dispatched after its refused acknowledgement would be heard before it ends.
    answerClick = async () => answered('Already decided by discord:ALICE');
    const later = fake.click({ messageId, userId: ALICE, customId: APPROVE.value, forged: true });
    await vi.waitFor(() =>
      expect(fake.interactions.filter((record) => record.kind === 'edit')).toHaveLength(2),
    );
    expect(clicks.map((click) => click.messageId)).toEqual([first, later]);
  });

  it('answers a failed dispatch to the clicker only and leaves the message and its buttons as they were', async () => {
    const messageId = await postRequest();
    answerClick = async () => {
      throw new Error('store is down');
    };
    const interactionId = fake.click({ messageId, userId: ALICE, customId: APPROVE.value });
    await vi.waitFor(() => expect(fake.interactions).toHaveLength(2));
    expect(fake.interactions[1]).toMatchObject({ kind: 'follow-up', interactionId, ephemeral: true });
    expect((fake.interactions[1] as { content: string }).content).toMatch(
      /could not be handled; nothing changed/,
    );
    expect(fake.message(messageId)?.buttons).toHaveLength(2);
  });

  it('tells the user of a menu it did not post that only its buttons are answered, without dispatching', async () => {
    const messageId = await postRequest();
    const interactionId = fake.click({
      messageId,
      userId: BOB,
      customId: 'someone-elses-menu',
      componentType: 3,
    });
    await vi.waitFor(() => expect(fake.interactions).toHaveLength(1));
    expect(fake.interactions[0]).toEqual({
      kind: 'callback',
      interactionId,
      type: 4,
      content: 'Only the buttons under my messages are answered here; nothing changed.',
      ephemeral: true,
    });
    expect(clicks).toEqual([]);
    expect(fake.message(messageId)?.buttons).toHaveLength(2);
  });

  it('leaves the message alone when the answer has no text', async () => {
    const messageId = await postRequest();
    answerClick = async () => ({ sessionKey: 'test', replies: [] });
    fake.click({ messageId, userId: ALICE, customId: APPROVE.value });
    await vi.waitFor(() => expect(clicks).toHaveLength(1));
    // A second click's edit shows the first made none.
    answerClick = async () => answered('Denied');
    fake.click({ messageId, userId: ALICE, customId: DENY.value });
    await vi.waitFor(() =>
      expect(fake.interactions.filter((record) => record.kind === 'edit')).toHaveLength(1),
    );
    expect(fake.interactions.map((record) => record.kind)).toEqual(['callback', 'callback', 'edit']);
  });

  it('routes a click in a thread by its parent channel and a click in a DM by the user', async () => {
    const inThread = await postRequest({ ...channelRoute, threadId: THREAD });
    fake.click({ messageId: inThread, userId: ALICE, customId: APPROVE.value });
    await vi.waitFor(() => expect(clicks).toHaveLength(1));
    expect(clicks[0]).toMatchObject({
      chatType: 'channel',
      chatId: CHANNEL,
      threadId: THREAD,
      guildId: GUILD,
    });
    const inDirect = await postRequest({ channel: 'discord', chatType: 'direct', chatId: ALICE });
    fake.click({ messageId: inDirect, userId: ALICE, customId: DENY.value });
    await vi.waitFor(() => expect(clicks).toHaveLength(2));
    expect(clicks[1]).toMatchObject({ chatType: 'direct', chatId: ALICE, senderId: `discord:${ALICE}` });
    expect(clicks[1]?.guildId).toBeUndefined();
    await vi.waitFor(() =>
      expect(fake.message(inDirect)).toEqual({
        content: answeredWith(`Approved by discord:${ALICE}`),
        buttons: [],
      }),
    );
  });
});
