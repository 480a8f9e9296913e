import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import type { InboundMessage } from '../../src/base/messages/index.js';
import { BUILTIN_COMMANDS } from '../../src/engine/routing/index.js';
import { createDiscordAdapter, type DiscordConfig } from '../../src/surfaces/channels/discord/index.js';
import type { ChannelAdapter } from '../../src/surfaces/channels/index.js';
import { createFakeDiscord, type FakeDiscord } from '../fakes/fake-discord.js';
import { createRouterRig, type RouterRig } from '../fakes/router-rig.js';

/**
 * Application commands on Discord: the real discord.js against the fake Discord, in front of the
 * real router (its command table and owner checks) whose turns are held open. Every dispatch waits
 * for `release()`, so a test sees what Discord got before the router answered.
 */

const TOKEN = 'fake-discord-commands-token';
const GUILD = '900000000000000301';
const CHANNEL = '910000000000000301';
const OWNER = '930000000000000301';
const BOB = '930000000000000302';

const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });

interface Harness {
  fake: FakeDiscord;
  adapter: ChannelAdapter;
  rig: RouterRig;
  dispatched: InboundMessage[];
  release(): void;
}

let current: Harness | undefined;

afterEach(async () => {
  current?.release();
  await current?.adapter.stop();
  await current?.fake.close();
  await current?.rig.close();
  current = undefined;
});

async function setup(guilds: string[] = [GUILD], access: Partial<DiscordConfig> = {}): Promise<Harness> {
  const fake = await createFakeDiscord({ token: TOKEN, guilds: [{ id: GUILD, channels: [CHANNEL] }] });
  const rig = await createRouterRig({ config: { owners: [`discord:${OWNER}`] } });
  const config: DiscordConfig = {
    token: TOKEN,
    apiBase: fake.apiBase,
    guilds,
    requireMention: true,
    channels: {},
    dmPolicy: 'allowlist',
    allowFrom: [],
    allowBots: false,
    maxBotTurns: 3,
    reconnect: { initialDelayMs: 1000, maxDelayMs: 300_000, refusedDelayMs: 1_800_000 },
    ...access,
  };
  const adapter = createDiscordAdapter({ config, logger, commands: BUILTIN_COMMANDS });
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const dispatched: InboundMessage[] = [];
  await adapter.start(async (message, options) => {
    dispatched.push(message);
    await released;
    return rig.router.dispatch(message, options);
  });
  current = { fake, adapter, rig, dispatched, release };
  return current;
}

describe('Discord application commands: registration', () => {
  it('registers the command table with one bulk overwrite per guild, options typed', async () => {
    const { fake } = await setup();
    expect(fake.registrations.map((entry) => entry.scope)).toEqual([GUILD]);
    const commands = fake.registrations[0]?.commands ?? [];
    expect(commands.map((command) => command.name)).toEqual(BUILTIN_COMMANDS.map((command) => command.name));
    for (const command of commands) expect(String(command.description).length).toBeLessThanOrEqual(100);
    const subagents = commands.find((command) => command.name === 'subagents');
    expect(subagents?.options).toEqual([
      { type: 1, name: 'list', description: "List this session's sub-agents.", options: [] },
      {
        type: 1,
        name: 'kill',
        description: 'Stop a sub-agent (or all of them).',
        options: [
          { type: 3, name: 'target', description: 'Its number, label, id prefix, or all.', required: true },
        ],
      },
      expect.objectContaining({ type: 1, name: 'steer' }),
    ]);
    const status = commands.find((command) => command.name === 'status');
    expect(status?.options).toEqual([expect.objectContaining({ type: 3, name: 'args', required: false })]);
    expect(fake.unknown).toEqual([]);
  });

  it('registers globally when no guilds are set', async () => {
    const { fake } = await setup([]);
    expect(fake.registrations.map((entry) => entry.scope)).toEqual(['global']);
  });
});

describe('Discord application commands: running one', () => {
  it('defers /status before the dispatch, then edits the deferred reply to the answer', async () => {
    const { fake, rig, dispatched, release } = await setup();
    const id = fake.runCommand({ name: 'status', userId: BOB, channelId: CHANNEL });
    await expect.poll(() => dispatched.length).toBe(1);
    // Deferred (type 5, public) while the dispatch is still held.
    expect(fake.commandRecords).toEqual([{ kind: 'callback', interactionId: id, type: 5, ephemeral: false }]);
    expect(dispatched[0]).toMatchObject({
      channel: 'discord',
      chatType: 'channel',
      chatId: CHANNEL,
      guildId: GUILD,
      senderId: `discord:${BOB}`,
      text: '/status',
      nativeCommand: true,
    });
    release();
    await expect.poll(() => fake.commandRecords.length).toBe(2);
    const edit = fake.commandRecords[1];
    expect(edit).toMatchObject({ kind: 'edit', interactionId: id });
    expect(edit?.kind === 'edit' && edit.content).toContain(`Session: agent:main:discord:channel:${CHANNEL}`);
    expect(rig.delivered).toEqual([]);
    expect(fake.posted).toEqual([]);
  });

  it('applies owner checks: an owner command is deferred privately, refused to others, shown to an owner', async () => {
    const { fake, release } = await setup();
    release();
    const refused = fake.runCommand({ name: 'config', userId: BOB, channelId: CHANNEL });
    await expect
      .poll(() => fake.commandRecords.filter((entry) => entry.interactionId === refused))
      .toEqual([
        { kind: 'callback', interactionId: refused, type: 5, ephemeral: true },
        {
          kind: 'edit',
          interactionId: refused,
          content: `/config refused: discord:${BOB}, role member may not run /config: role member lacks it (roles.member.commands: *).`,
        },
      ]);
    const shown = fake.runCommand({ name: 'config', userId: OWNER, channelId: CHANNEL });
    await expect
      .poll(() => fake.commandRecords.find((entry) => entry.interactionId === shown && entry.kind === 'edit'))
      .toMatchObject({ content: expect.stringMatching(/^Usage: \/config get/) });
  });

  it('passes typed options on as the text command, and a failed dispatch privately', async () => {
    const { fake, dispatched, release } = await setup();
    release();
    // The rig's sub-agents service does nothing: the command fails in the router.
    const id = fake.runCommand({
      name: 'subagents',
      userId: BOB,
      channelId: CHANNEL,
      options: [{ name: 'kill', type: 1, options: [{ name: 'target', type: 3, value: 'research bot' }] }],
    });
    await expect
      .poll(() => dispatched.map((message) => message.text))
      .toEqual(['/subagents kill research bot']);
    // The public "thinking…" goes; the failure is told to its user alone.
    await expect
      .poll(() => fake.commandRecords.map((entry) => entry.kind))
      .toEqual(['callback', 'delete', 'follow-up']);
    expect(fake.commandRecords[2]).toMatchObject({ interactionId: id, ephemeral: true });
  });

  it('hears a command only where it hears a message: refused to its user alone, not dispatched', async () => {
    const { fake, dispatched, release } = await setup([GUILD], { channels: { '910000000000000399': {} } });
    release();
    const id = fake.runCommand({ name: 'status', userId: BOB, channelId: CHANNEL });
    await expect
      .poll(() => fake.commandRecords)
      .toEqual([{ kind: 'callback', interactionId: id, type: 4, ephemeral: true }]);
    expect(dispatched).toEqual([]);
  });
});
