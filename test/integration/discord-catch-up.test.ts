import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import type { InboundMessage } from '../../src/base/messages/index.js';
import { createDiscordAdapter, type DiscordConfig } from '../../src/surfaces/channels/discord/index.js';
import type { ChannelAdapter } from '../../src/surfaces/channels/index.js';
import { type ChannelMemory, createLocalMemory } from '../../src/surfaces/channels/memory.js';
import { startDiscordForTest } from '../helpers/channels.js';
import { cleanupAfterEach } from '../helpers/teardown.js';

// Acknowledged means durable on Discord: the real discord.js against the fake Discord. On every
// (re)connect the adapter reads each active channel's messages after the last one it saw and
// hands on those not yet stored, so a message sent while the bot was away (a restart) or one it
// received but died before storing is answered, once.

const TOKEN = 'catch-up-token';
const GUILD = '900000000000000011';
const CHANNEL = '910000000000000011';
const ALICE = '930000000000000011';
const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });
const cleanups = cleanupAfterEach();

interface Bot {
  adapter: ChannelAdapter;
  heard: InboundMessage[];
  redeliveries: boolean[];
}

/**
 * An adapter on `memory` (what survives a restart: the gateway's store) whose stand-in router
 * stores a message (`accepted`) unless `stores` says no: then it hangs as a process would that
 * died before its inbox write.
 */
async function startBot(
  config: DiscordConfig,
  memory: ChannelMemory,
  stores: (message: InboundMessage) => boolean = () => true,
): Promise<Bot> {
  const adapter = createDiscordAdapter({ config, logger, memory });
  const bot: Bot = { adapter, heard: [], redeliveries: [] };
  let stopped = false;
  cleanups.push(async () => {
    if (!stopped) await adapter.stop();
  });
  const stop = adapter.stop.bind(adapter);
  adapter.stop = async () => {
    stopped = true;
    await stop();
  };
  await adapter.start(async (message, options) => {
    bot.heard.push(message);
    bot.redeliveries.push(options?.redelivery === true);
    if (!stores(message)) return new Promise(() => undefined);
    options?.accepted?.();
    return { sessionKey: 'test', replies: [] };
  });
  return bot;
}

describe('Discord catch-up on (re)connect', () => {
  it('answers, after a restart, the messages sent while the bot was away and one it heard but never stored', async () => {
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
      reconnect: { initialDelayMs: 1000, maxDelayMs: 300_000, refusedDelayMs: 1_800_000 },
    };
    const mention = (text: string) => ({
      channelId: CHANNEL,
      guildId: GUILD,
      authorId: ALICE,
      content: `<@${fake.botId}> ${text}`,
    });
    const memory = createLocalMemory();
    // The first process stores `first`, and dies before storing `unstored`.
    const first = await startBot(config, memory, (message) => message.text !== 'unstored');
    fake.dispatchMessage(mention('first'));
    await vi.waitFor(() => expect(first.heard.map((message) => message.text)).toEqual(['first']));
    fake.dispatchMessage(mention('unstored'));
    await vi.waitFor(() => expect(first.heard.map((message) => message.text)).toContain('unstored'));
    await first.adapter.stop();
    // Sent while no process is connected: Discord keeps it, the gateway does not replay it.
    fake.dispatchMessage(mention('while away'));
    fake.dispatchMessage({ ...mention('not for the bot'), content: 'not for the bot' });

    const second = await startBot(config, memory);
    await vi.waitFor(() =>
      expect(second.heard.map((message) => message.text)).toEqual(['unstored', 'while away']),
    );
    expect(second.redeliveries).toEqual([true, true]);
    expect(fake.historyReads).toContain(CHANNEL);

    // A reconnect reads again, and hands on nothing twice.
    const reads = fake.historyReads.length;
    fake.dispatchMessage(mention('live'));
    await vi.waitFor(() => expect(second.heard.map((message) => message.text)).toContain('live'));
    fake.closeConnections(4000);
    await vi.waitFor(() => expect(fake.historyReads.length).toBeGreaterThan(reads), { timeout: 15_000 });
    fake.dispatchMessage(mention('after the reconnect'));
    await vi.waitFor(() =>
      expect(second.heard.map((message) => message.text)).toEqual([
        'unstored',
        'while away',
        'live',
        'after the reconnect',
      ]),
    );
  }, 40_000);
});
