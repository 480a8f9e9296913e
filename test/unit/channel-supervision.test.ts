import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import type { DispatchOptions, InboundMessage } from '../../src/base/messages/index.js';
import { createChannelSupervisor, type ReconnectSettings } from '../../src/surfaces/channels/index.js';
import { createFakeChannel, type FakeChannel } from '../fakes/fake-channel.js';

/**
 * The channel supervisor over in-process fake adapters (test/fakes/fake-channel.ts): which
 * channel a failure costs, the retry plan, a lost connection, stopping, and the messages it lets
 * through. Time is vi's fake clock; the jitter is fixed (`random: () => 0` waits half the ceiling).
 */

const SETTINGS: ReconnectSettings = { initialDelayMs: 100, maxDelayMs: 1000, refusedDelayMs: 60_000 };
const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });

function supervise(...channels: { adapter: FakeChannel; reconnect?: ReconnectSettings }[]) {
  const heard: { message: InboundMessage; options: DispatchOptions | undefined }[] = [];
  const supervisor = createChannelSupervisor({ channels, logger, random: () => 0 });
  const handler = async (message: InboundMessage, options?: DispatchOptions) => {
    heard.push({ message, options });
    return { sessionKey: `agent:main:${message.channel}:direct:${message.chatId}`, replies: [] };
  };
  return { supervisor, heard, start: () => supervisor.start(handler) };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the channel supervisor with fake adapters', () => {
  it('a platform down at the start costs that channel only, and it is retried with backoff', async () => {
    vi.useFakeTimers();
    const slack = createFakeChannel('slack');
    const discord = createFakeChannel('discord');
    slack.planStarts('down', 'down');
    const { supervisor, start } = supervise(
      { adapter: slack, reconnect: SETTINGS },
      { adapter: discord, reconnect: SETTINGS },
    );
    await start();
    expect(supervisor.states()).toEqual({ slack: 'retrying', discord: 'connected' });
    // A failed start is stopped before the next one: nothing half-open is left behind.
    expect(slack.calls).toEqual(['start', 'stop']);
    await vi.advanceTimersByTimeAsync(49);
    expect(slack.calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(slack.calls).toEqual(['start', 'stop', 'start', 'stop']);
    // The second wait doubles: 200 ms, half of it with this jitter.
    await vi.advanceTimersByTimeAsync(99);
    expect(supervisor.states().slack).toBe('retrying');
    await vi.advanceTimersByTimeAsync(1);
    expect(supervisor.states()).toEqual({ slack: 'connected', discord: 'connected' });
    expect(slack.running).toBe(true);
    await supervisor.stop();
  });

  it('says refused while the platform refuses the credentials, and retries at refusedDelayMs', async () => {
    vi.useFakeTimers();
    const slack = createFakeChannel('slack');
    slack.planStarts('refused');
    const { supervisor, start } = supervise({ adapter: slack, reconnect: SETTINGS });
    await start();
    expect(supervisor.states()).toEqual({ slack: 'refused' });
    await vi.advanceTimersByTimeAsync(SETTINGS.refusedDelayMs / 2 - 1);
    expect(slack.calls.filter((call) => call === 'start')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(supervisor.states()).toEqual({ slack: 'connected' });
    await supervisor.stop();
  });

  it('fails the start for a channel without reconnect settings, and starts none after it', async () => {
    const webchat = createFakeChannel('webchat');
    const slack = createFakeChannel('slack');
    webchat.planStarts('down');
    const { start } = supervise({ adapter: webchat }, { adapter: slack, reconnect: SETTINGS });
    await expect(start()).rejects.toThrow('ECONNREFUSED (fake)');
    expect(slack.calls).toEqual([]);
  });

  it('follows the connection: down and up while connected, lost means stopped and started again', async () => {
    vi.useFakeTimers();
    const discord = createFakeChannel('discord');
    const { supervisor, start } = supervise({ adapter: discord, reconnect: SETTINGS });
    await start();
    discord.connection('down');
    expect(supervisor.states()).toEqual({ discord: 'retrying' });
    discord.connection('up');
    expect(supervisor.states()).toEqual({ discord: 'connected' });

    discord.planStarts('down');
    discord.connection('lost', new Error('gateway closed (4000)'));
    expect(supervisor.states()).toEqual({ discord: 'retrying' });
    await vi.advanceTimersByTimeAsync(0);
    // Started again at once; that failed, so the next start backs off.
    expect(discord.calls).toEqual(['start', 'stop', 'start', 'stop']);
    // While a restart is planned, the library's own up/down say nothing.
    discord.connection('up');
    expect(supervisor.states()).toEqual({ discord: 'retrying' });
    await vi.advanceTimersByTimeAsync(50);
    expect(supervisor.states()).toEqual({ discord: 'connected' });
    expect(discord.calls).toEqual(['start', 'stop', 'start', 'stop', 'start']);
    await supervisor.stop();
  });

  it('ignores connection events while the first start is under way', async () => {
    const slack = createFakeChannel('slack');
    slack.planStarts('held');
    const { supervisor, start } = supervise({ adapter: slack, reconnect: SETTINGS });
    const started = start();
    await Promise.resolve();
    slack.connection('down');
    slack.connection('lost');
    expect(supervisor.states()).toEqual({ slack: 'connecting' });
    slack.release();
    await started;
    expect(supervisor.states()).toEqual({ slack: 'connected' });
    expect(slack.calls).toEqual(['start']);
    await supervisor.stop();
  });

  it('stop waits for a start under way, then stops every channel, the last started first', async () => {
    const order: string[] = [];
    const slack = createFakeChannel('slack');
    const discord = createFakeChannel('discord');
    for (const fake of [slack, discord]) {
      const stop = fake.stop.bind(fake);
      fake.stop = async () => {
        order.push(fake.name);
        await stop();
      };
    }
    discord.planStarts('held');
    const { supervisor, start } = supervise(
      { adapter: slack, reconnect: SETTINGS },
      { adapter: discord, reconnect: SETTINGS },
    );
    const started = start();
    await vi.waitFor(() => expect(discord.calls).toEqual(['start']));
    let stopped = false;
    const stopping = supervisor.stop().then(() => {
      stopped = true;
    });
    await Promise.resolve();
    expect(stopped).toBe(false);
    discord.release();
    await Promise.all([started, stopping]);
    expect(order).toEqual(['discord', 'slack']);
    expect(slack.running || discord.running).toBe(false);
  });

  it('plans no retry after endRetries, and the connected channels keep running until stop', async () => {
    vi.useFakeTimers();
    const slack = createFakeChannel('slack');
    const discord = createFakeChannel('discord');
    slack.planStarts('down');
    const { supervisor, start } = supervise(
      { adapter: slack, reconnect: SETTINGS },
      { adapter: discord, reconnect: SETTINGS },
    );
    await start();
    supervisor.endRetries();
    expect(vi.getTimerCount()).toBe(0);
    discord.connection('lost');
    await vi.runAllTimersAsync();
    expect(slack.calls).toEqual(['start', 'stop']);
    expect(discord.calls).toEqual(['start']);
    expect(discord.running).toBe(true);
    await supervisor.stop();
    expect(discord.running).toBe(false);
  });
});

describe('dispatch through a supervised adapter', () => {
  it('hands each platform message and its options to the handler, and its result back', async () => {
    const slack = createFakeChannel('slack');
    const { supervisor, heard, start } = supervise({ adapter: slack, reconnect: SETTINGS });
    await start();
    const result = await slack.receive({ text: 'hello', chatId: 'U7' }, { redelivery: true });
    expect(result.sessionKey).toBe('agent:main:slack:direct:U7');
    expect(heard).toHaveLength(1);
    expect(heard[0]?.message).toMatchObject({ channel: 'slack', chatId: 'U7', text: 'hello' });
    expect(heard[0]?.options).toEqual({ redelivery: true });
    await supervisor.stop();
    await expect(slack.receive({ text: 'late' })).rejects.toThrow('not started');
    expect(heard).toHaveLength(1);
  });

  it('a channel started again after a lost connection gets the same handler', async () => {
    const discord = createFakeChannel('discord');
    const { supervisor, heard, start } = supervise({ adapter: discord, reconnect: SETTINGS });
    await start();
    discord.connection('lost');
    await vi.waitFor(() => expect(discord.calls).toEqual(['start', 'stop', 'start']));
    await vi.waitFor(() => expect(supervisor.states()).toEqual({ discord: 'connected' }));
    await discord.receive({ text: 'back' });
    expect(heard.map(({ message }) => message.text)).toEqual(['back']);
    await supervisor.stop();
  });
});
