import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import type { InboundMessage } from '../../src/base/messages/index.js';
import { createDiscordAdapter, type DiscordConfig } from '../../src/surfaces/channels/discord/index.js';
import type { ChannelAdapter } from '../../src/surfaces/channels/index.js';
import { createFakeDiscord, type FakeDiscord } from '../fakes/fake-discord.js';
import { countResources } from '../helpers/resources.js';

const TOKEN = 'fake-discord-token';
const GUILD = '900000000000000001';
const OTHER_GUILD = '900000000000000002';
const CHANNEL = '910000000000000001';
const OTHER_CHANNEL = '910000000000000002';
const THREAD = '920000000000000001';
const NEW_THREAD = '920000000000000002';
const ALICE = '930000000000000001';
const BOB = '930000000000000002';
const OTHER_BOT = '930000000000000003';

const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });

let fake: FakeDiscord;
let adapter: ChannelAdapter;
let heard: InboundMessage[];
/** What each turn replies; the turn ends when the reply is sent. */
let reply: (message: InboundMessage) => string;
/** Runs in the turn before the reply is sent. */
let beforeReply: (() => Promise<void>) | undefined;

function configFor(overrides: Partial<DiscordConfig> = {}): DiscordConfig {
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
    ...overrides,
  };
}

async function startAdapter(config: DiscordConfig): Promise<void> {
  adapter = createDiscordAdapter({ config, logger });
  await adapter.start(async (message) => {
    heard.push(message);
    await beforeReply?.();
    const text = reply(message);
    const route = { channel: 'discord' as const, chatType: message.chatType, chatId: message.chatId };
    await adapter.send(message.threadId === undefined ? route : { ...route, threadId: message.threadId }, {
      id: `reply-${heard.length}`,
      text,
    });
    return { sessionKey: 'test', replies: [] };
  });
}

/**
 * Waits until everything dispatched before has been handled: gateway frames arrive in order,
 * so once a marker message is heard the earlier ones were. The marker is then forgotten.
 */
let markers = 0;
async function settle(): Promise<void> {
  const text = `marker ${++markers}`;
  fake.dispatchMessage({
    channelId: CHANNEL,
    guildId: GUILD,
    authorId: ALICE,
    content: `<@${fake.botId}> ${text}`,
  });
  await vi.waitFor(() => expect(heard.map((message) => message.text)).toContain(text));
  heard = heard.filter((message) => message.text !== text);
}

beforeEach(async () => {
  fake = await createFakeDiscord({
    token: TOKEN,
    guilds: [
      {
        id: GUILD,
        channels: [CHANNEL, OTHER_CHANNEL],
        threads: [
          { id: THREAD, parentId: CHANNEL },
          { id: NEW_THREAD, parentId: CHANNEL, announced: false },
        ],
      },
      { id: OTHER_GUILD, channels: ['910000000000000009'] },
    ],
  });
  heard = [];
  reply = (message) => `echo: ${message.text}`;
  beforeReply = undefined;
});

afterEach(async () => {
  vi.useRealTimers();
  await adapter?.stop();
  await fake.close();
  // Every request discord.js made is one the fake knows.
  expect(fake.unknown).toEqual([]);
});

describe('discord adapter against a fake Discord', () => {
  it('hears a mention in a guild channel and replies there as a reply, with typing', async () => {
    await startAdapter(configFor());
    const id = fake.dispatchMessage({
      channelId: CHANNEL,
      guildId: GUILD,
      authorId: ALICE,
      content: `<@${fake.botId}> hello there`,
      mentions: [fake.botId],
    });
    await vi.waitFor(() => expect(fake.posted).toHaveLength(1));
    expect(heard).toEqual([
      {
        channel: 'discord',
        chatType: 'channel',
        chatId: CHANNEL,
        senderId: `discord:${ALICE}`,
        text: 'hello there',
        messageId: id,
        guildId: GUILD,
      },
    ]);
    expect(fake.posted[0]).toEqual({ channelId: CHANNEL, content: 'echo: hello there', replyTo: id });
    // Typing is sent before the turn, as its own request: it may land after the reply does.
    await vi.waitFor(() => expect(fake.typing).toContain(CHANNEL));
    expect(fake.unknown).toEqual([]);
  });

  it('refreshes typing while a long turn runs and stops with the reply', async () => {
    await startAdapter(configFor());
    const typed = () => fake.typing.filter((channelId) => channelId === OTHER_CHANNEL).length;
    // Typing is refreshed every 8 s: intervals started from here on run on a fake clock (the
    // connection's heartbeat, started before, keeps the real one).
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    beforeReply = async () => {
      await vi.waitFor(() => expect(typed()).toBe(1));
      await vi.advanceTimersByTimeAsync(8000);
      await vi.waitFor(() => expect(typed()).toBe(2));
    };
    const content = `<@${fake.botId}> slow`;
    fake.dispatchMessage({ channelId: OTHER_CHANNEL, guildId: GUILD, authorId: ALICE, content });
    await vi.waitFor(() => expect(fake.posted).toHaveLength(1), { timeout: 15_000 });
    beforeReply = undefined;
    // Two more refresh periods after the reply: a refresh left running would type again.
    await vi.advanceTimersByTimeAsync(16_000);
    await settle();
    expect(typed()).toBe(2);
  });

  it('ignores a channel message without a mention', async () => {
    await startAdapter(configFor());
    fake.dispatchMessage({ channelId: CHANNEL, guildId: GUILD, authorId: ALICE, content: 'just chatting' });
    await settle();
    expect(heard).toEqual([]);
    // `settle` waits until the marker is heard; its reply is posted just after. It is the only post.
    await vi.waitFor(() => expect(fake.posted).toHaveLength(1));
    expect(fake.posted[0]?.content).toMatch(/^echo: marker \d+$/);
  });

  it('hears a DM from an allowed user and replies in the DM channel; ignores other users', async () => {
    await startAdapter(configFor());
    const dmChannel = '940000000000000001';
    fake.dispatchMessage({ channelId: '940000000000000002', authorId: BOB, content: 'let me in' });
    const id = fake.dispatchMessage({ channelId: dmChannel, authorId: ALICE, content: 'hi bot' });
    await vi.waitFor(() => expect(fake.posted).toHaveLength(1));
    expect(heard).toEqual([
      {
        channel: 'discord',
        chatType: 'direct',
        chatId: ALICE,
        senderId: `discord:${ALICE}`,
        text: 'hi bot',
        messageId: id,
      },
    ]);
    expect(fake.posted[0]).toEqual({ channelId: dmChannel, content: 'echo: hi bot', replyTo: id });
    await settle();
    expect(heard).toHaveLength(1);
  });

  it("ignores its own echoed posts and other bots' messages, even where no mention is needed", async () => {
    // Without a mention requirement every echo of a reply would be heard (and answered) again.
    await startAdapter(configFor({ requireMention: false }));
    const mention = `<@${fake.botId}> ping`;
    const botMessage = { channelId: CHANNEL, guildId: GUILD, authorBot: true, content: mention };
    fake.dispatchMessage({ ...botMessage, authorId: fake.botId });
    fake.dispatchMessage({ ...botMessage, authorId: OTHER_BOT });
    const id = fake.dispatchMessage({
      channelId: CHANNEL,
      guildId: GUILD,
      authorId: ALICE,
      content: 'hello',
    });
    await vi.waitFor(() => expect(fake.posted).toHaveLength(1));
    await settle();
    await settle();
    // One reply and the two markers' replies, each echoed back by the fake, and nothing answered
    // twice. `settle` returns once a marker is heard; its reply is posted just after.
    await vi.waitFor(() => expect(fake.posted).toHaveLength(3));
    expect(heard.map((message) => message.messageId)).toEqual([id]);
  });

  it('hears other bots with allowBots', async () => {
    await startAdapter(configFor({ allowBots: true }));
    const mention = `<@${fake.botId}> ping`;
    fake.dispatchMessage({
      channelId: CHANNEL,
      guildId: GUILD,
      authorId: OTHER_BOT,
      authorBot: true,
      content: mention,
    });
    await vi.waitFor(() => expect(heard).toHaveLength(1));
    expect(heard[0]?.senderId).toBe(`discord:${OTHER_BOT}`);
    await settle();
    expect(heard).toHaveLength(1);
  });

  it('does not take a reply ping (a reply to its message that pings it) for a mention', async () => {
    await startAdapter(configFor());
    const asked = fake.dispatchMessage({
      channelId: CHANNEL,
      guildId: GUILD,
      authorId: ALICE,
      content: `<@${fake.botId}> first`,
      mentions: [fake.botId],
    });
    await vi.waitFor(() => expect(fake.posted.some((post) => post.replyTo === asked)).toBe(true));
    const ours = fake.lastPostId() as string;
    fake.dispatchMessage({
      channelId: CHANNEL,
      guildId: GUILD,
      authorId: BOB,
      content: 'thanks',
      replyTo: ours,
      replyPing: true,
    });
    await settle();
    expect(heard.map((message) => message.text)).toEqual(['first']);
    // A reply that also mentions the bot in its text is a mention.
    fake.dispatchMessage({
      channelId: CHANNEL,
      guildId: GUILD,
      authorId: BOB,
      content: `<@${fake.botId}> and another thing`,
      mentions: [fake.botId],
      replyTo: ours,
      replyPing: true,
    });
    await vi.waitFor(() => expect(heard.map((message) => message.text)).toContain('and another thing'));
  });

  it('maps a thread message to its parent channel and the thread, and keeps listening there', async () => {
    await startAdapter(configFor());
    const id = fake.dispatchMessage({
      channelId: THREAD,
      guildId: GUILD,
      authorId: ALICE,
      content: `<@!${fake.botId}> in a thread`,
    });
    await vi.waitFor(() => expect(fake.posted).toHaveLength(1));
    expect(heard[0]).toMatchObject({
      chatType: 'channel',
      chatId: CHANNEL,
      threadId: THREAD,
      text: 'in a thread',
    });
    expect(fake.posted[0]).toEqual({ channelId: THREAD, content: 'echo: in a thread', replyTo: id });
    expect(fake.typing).toContain(THREAD);
    // The bot takes part in the thread now: no mention needed there.
    fake.dispatchMessage({ channelId: THREAD, guildId: GUILD, authorId: BOB, content: 'follow-up' });
    await vi.waitFor(() => expect(fake.posted).toHaveLength(2));
    expect(heard[1]).toMatchObject({ threadId: THREAD, text: 'follow-up', senderId: `discord:${BOB}` });
  });

  it('fetches a thread it has not seen to learn its parent channel', async () => {
    await startAdapter(configFor());
    const content = `<@${fake.botId}> new thread`;
    fake.dispatchMessage({ channelId: NEW_THREAD, guildId: GUILD, authorId: ALICE, content });
    await vi.waitFor(() => expect(fake.posted).toHaveLength(1));
    expect(heard[0]).toMatchObject({
      chatType: 'channel',
      chatId: CHANNEL,
      threadId: NEW_THREAD,
      guildId: GUILD,
    });
    expect(fake.posted[0]?.channelId).toBe(NEW_THREAD);
  });

  it('splits a 2500-character reply in two, replying with the first part', async () => {
    await startAdapter(configFor());
    reply = () => `${'a'.repeat(1200)}\n\n${'b'.repeat(1300)}`;
    const id = fake.dispatchMessage({
      channelId: CHANNEL,
      guildId: GUILD,
      authorId: ALICE,
      content: `<@${fake.botId}> long`,
    });
    await vi.waitFor(() => expect(fake.posted).toHaveLength(2));
    expect(fake.posted).toEqual([
      { channelId: CHANNEL, content: 'a'.repeat(1200), replyTo: id },
      { channelId: CHANNEL, content: 'b'.repeat(1300) },
    ]);
  });

  it('ignores guilds outside `guilds`, channels outside `channels`, and a message delivered twice', async () => {
    await startAdapter(configFor({ channels: { [CHANNEL]: {} } }));
    const mention = `<@${fake.botId}> hello`;
    fake.dispatchMessage({
      channelId: '910000000000000009',
      guildId: OTHER_GUILD,
      authorId: ALICE,
      content: mention,
    });
    fake.dispatchMessage({ channelId: OTHER_CHANNEL, guildId: GUILD, authorId: ALICE, content: mention });
    const id = fake.dispatchMessage({
      channelId: CHANNEL,
      guildId: GUILD,
      authorId: ALICE,
      content: mention,
    });
    fake.dispatchMessage({ id, channelId: CHANNEL, guildId: GUILD, authorId: ALICE, content: mention });
    await settle();
    expect(heard.map((message) => message.messageId)).toEqual([id]);
  });

  it('waits out a 429 on the reply and posts it once', async () => {
    await startAdapter(configFor());
    fake.rateLimitPosts(1, 0.2);
    const id = fake.dispatchMessage({
      channelId: CHANNEL,
      guildId: GUILD,
      authorId: ALICE,
      content: `<@${fake.botId}> hi`,
    });
    await vi.waitFor(() => expect(fake.posted).toHaveLength(1));
    expect(fake.rateLimited()).toBe(1);
    expect(fake.posted[0]).toEqual({ channelId: CHANNEL, content: 'echo: hi', replyTo: id });
  });

  it('resumes after op 7, drops the replayed message and answers the next one once', async () => {
    await startAdapter(configFor());
    const mention = `<@${fake.botId}> first`;
    const first = fake.dispatchMessage({
      channelId: CHANNEL,
      guildId: GUILD,
      authorId: ALICE,
      content: mention,
    });
    await vi.waitFor(() => expect(fake.posted).toHaveLength(1));
    // `first` arrives twice more: once now, once replayed by the fake after the resume.
    fake.dispatchMessage({
      id: first,
      channelId: CHANNEL,
      guildId: GUILD,
      authorId: ALICE,
      content: mention,
    });
    fake.requestReconnect();
    await vi.waitFor(() => expect(fake.resumes()).toBe(1), { timeout: 10_000 });
    const second = fake.dispatchMessage({
      channelId: CHANNEL,
      guildId: GUILD,
      authorId: ALICE,
      content: `<@${fake.botId}> second`,
    });
    await vi.waitFor(() => expect(fake.posted).toHaveLength(2), { timeout: 10_000 });
    await settle();
    expect(heard.map((message) => message.messageId)).toEqual([first, second]);
  });

  it('sends to a route nobody wrote on yet: a channel without a reply reference, a user through a new DM', async () => {
    await startAdapter(configFor());
    await adapter.send(
      { channel: 'discord', chatType: 'channel', chatId: OTHER_CHANNEL },
      { id: 'n1', text: 'note' },
    );
    await adapter.send(
      { channel: 'discord', chatType: 'direct', chatId: BOB },
      { id: 'n2', text: 'hello Bob' },
    );
    expect(fake.posted[0]).toEqual({ channelId: OTHER_CHANNEL, content: 'note' });
    expect(fake.posted[1]).toMatchObject({ content: 'hello Bob' });
    expect(fake.posted[1]?.replyTo).toBeUndefined();
    expect(fake.dmChannelOf(BOB)).toBe(fake.posted[1]?.channelId);
  });

  it('fails to start with a wrong token', async () => {
    adapter = createDiscordAdapter({ config: { ...configFor(), token: 'wrong-token' }, logger });
    await expect(adapter.start(async () => ({ sessionKey: 'x', replies: [] }))).rejects.toThrow(/token/i);
    expect(fake.connections()).toBe(0);
  });

  it('stop closes the gateway connection and leaves no timers', async () => {
    const timers = () => countResources('Timeout');
    const before = timers();
    await startAdapter(configFor());
    await settle();
    expect(fake.connections()).toBe(1);
    await adapter.stop();
    await vi.waitFor(() => expect(fake.connections()).toBe(0));
    await vi.waitFor(() => expect(timers()).toBeLessThanOrEqual(before));
  });
});
