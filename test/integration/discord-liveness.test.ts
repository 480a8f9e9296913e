import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import type { InboundMessage } from '../../src/base/messages/index.js';
import { createDiscordAdapter, type DiscordConfig } from '../../src/surfaces/channels/discord/index.js';
import { createChannelSupervisor } from '../../src/surfaces/channels/index.js';
import type { FakeDiscord } from '../fakes/fake-discord.js';
import { startDiscordForTest } from '../helpers/channels.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

/**
 * Deaf sockets (issue 32 item 4): a gateway connection that stays open, has its heartbeats
 * acknowledged and gets no dispatches. The fake Discord's `deafen` stops dispatching to the open
 * connection while messages still land in the channels (`GET /channels/:id/messages`).
 */

const TOKEN = 'liveness-token';
const GUILD = '900000000000000021';
const CHANNEL = '910000000000000021';
const ALICE = '930000000000000021';
const LIVENESS = { deafAfterMs: 1500, checkIntervalMs: 500 };
/** The longest a deaf connection may go unnoticed: silent for deafAfterMs, then two checks agree. */
const NOTICED_WITHIN_MS = LIVENESS.deafAfterMs + 2 * LIVENESS.checkIntervalMs;
const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });
const cleanups = cleanupAfterEach();

async function setup(liveness: DiscordConfig['liveness'] = LIVENESS) {
  const fake = await startDiscordForTest(cleanups, {
    token: TOKEN,
    guilds: [{ id: GUILD, channels: [CHANNEL] }],
  });
  const config: DiscordConfig = {
    token: TOKEN,
    apiBase: fake.apiBase,
    guilds: [GUILD],
    requireMention: true,
    channels: {},
    dmPolicy: 'allowlist',
    allowFrom: [ALICE],
    allowBots: false,
    maxBotTurns: 3,
    reconnect: { initialDelayMs: 100, maxDelayMs: 1000, refusedDelayMs: 60_000 },
    liveness,
  };
  const adapter = createDiscordAdapter({ config, logger });
  const supervisor = createChannelSupervisor({
    channels: [{ adapter, reconnect: config.reconnect }],
    logger,
  });
  const heard: InboundMessage[] = [];
  await supervisor.start(async (message, options) => {
    heard.push(message);
    options?.accepted?.();
    await adapter.send(
      { channel: 'discord', chatType: message.chatType, chatId: message.chatId },
      { id: `reply-${heard.length}`, text: `re: ${message.text}` },
    );
    return { sessionKey: 'test', replies: [] };
  });
  cleanups.push(() => supervisor.stop());
  const mention = (text: string) => ({
    channelId: CHANNEL,
    guildId: GUILD,
    authorId: ALICE,
    content: `<@${fake.botId}> ${text}`,
  });
  return { fake, adapter, supervisor, heard, mention };
}

const replied = (fake: FakeDiscord, text: string) => fake.posted.some((post) => post.content === text);

describe('Discord gateway liveness', () => {
  it('finds a connection that gets no dispatches while Discord shows a message, connects anew, and the message is answered', async () => {
    const { fake, supervisor, heard, mention } = await setup();
    fake.dispatchMessage(mention('before'));
    await vi.waitFor(() => expect(replied(fake, 're: before')).toBe(true));
    fake.deafen();
    fake.dispatchMessage(mention('while deaf'));
    // The catch-up of the new connection reads it from the channel.
    await vi.waitFor(() => expect(replied(fake, 're: while deaf')).toBe(true), {
      timeout: NOTICED_WITHIN_MS + 5_000,
    });
    expect(fake.identifies()).toBe(2);
    expect(heard.map((message) => message.text)).toEqual(['before', 'while deaf']);
    const [detail] = supervisor.details();
    expect(detail).toMatchObject({ name: 'discord', state: 'connected', deafReconnects: 1 });
    expect(detail?.lastDeaf?.reason).toMatch(new RegExp(`nothing arrived .* ${CHANNEL}`));
  }, 30_000);

  it('leaves a quiet server alone: no messages, or only its own posts, is not deafness', async () => {
    const { fake, adapter, supervisor, mention } = await setup();
    fake.dispatchMessage(mention('before'));
    await vi.waitFor(() => expect(replied(fake, 're: before')).toBe(true));
    fake.deafen();
    const reads = fake.historyReads.length;
    await adapter.send(
      { channel: 'discord', chatType: 'channel', chatId: CHANNEL },
      { id: 'n1', text: 'on schedule' },
    );
    // Several checks ran (each read the channel) and found nothing missed.
    await vi.waitFor(() => expect(fake.historyReads.length).toBeGreaterThanOrEqual(reads + 6), {
      timeout: NOTICED_WITHIN_MS * 6 + 5_000,
    });
    expect(fake.historyReads.length).toBeGreaterThan(reads);
    expect(fake.identifies()).toBe(1);
    expect(supervisor.details()[0]).toMatchObject({ state: 'connected' });
    expect(supervisor.details()[0]?.deafReconnects).toBeUndefined();
  }, 30_000);
});
