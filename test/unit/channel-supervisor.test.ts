import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import { retryDelay } from '../../src/surfaces/channels/backoff.js';
import {
  type ChannelAdapter,
  type ConnectionEvent,
  createChannelSupervisor,
  type ReconnectSettings,
} from '../../src/surfaces/channels/index.js';

/**
 * The supervisor's retry plan, with vi's fake timers standing in for time only: an adapter whose
 * start fails while `down` is set, as a platform that is down.
 */

const SETTINGS: ReconnectSettings = { initialDelayMs: 100, maxDelayMs: 1000, refusedDelayMs: 60_000 };

function flakyAdapter(options: { failures: number; refused?: boolean }) {
  const starts: number[] = [];
  let left = options.failures;
  const adapter: ChannelAdapter = {
    name: 'slack',
    async start() {
      starts.push(Date.now());
      if (left > 0) {
        left -= 1;
        throw new Error(options.refused ? 'invalid_auth' : 'ECONNREFUSED');
      }
    },
    stop: async () => {},
    send: async () => {},
    tokenRefused: () => options.refused === true,
  };
  return { adapter, starts };
}

const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });
const handler = async () => ({ sessionKey: 'k', replies: [] });

afterEach(() => {
  vi.useRealTimers();
});

describe('retryDelay', () => {
  it('doubles from initialDelayMs, is capped at maxDelayMs, and jitters between half and all of it', () => {
    const ceilings = [1, 2, 3, 4, 5, 6, 60].map((failures) =>
      retryDelay(failures, SETTINGS, false, () => 0.999999),
    );
    expect(ceilings).toEqual([100, 200, 400, 800, 1000, 1000, 1000]);
    expect(retryDelay(3, SETTINGS, false, () => 0)).toBe(200);
    expect(retryDelay(1, SETTINGS, true, () => 0)).toBe(30_000);
    expect(retryDelay(10_000, SETTINGS, false, () => 0.5)).toBe(750);
  });
});

describe('the channel supervisor', () => {
  it('retries a failed start with capped backoff until it connects, then reports it connected', async () => {
    vi.useFakeTimers();
    const { adapter, starts } = flakyAdapter({ failures: 6 });
    const supervisor = createChannelSupervisor({
      channels: [{ adapter, reconnect: SETTINGS }],
      logger,
      random: () => 0.999999,
    });
    await supervisor.start(handler);
    expect(supervisor.states()).toEqual({ slack: 'retrying' });
    await vi.runAllTimersAsync();
    expect(supervisor.states()).toEqual({ slack: 'connected' });
    const waits = starts.slice(1).map((at, index) => at - (starts[index] as number));
    expect(waits).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('details: the reason while it is down, the failed attempts, and no reason once connected', async () => {
    vi.useFakeTimers();
    const { adapter } = flakyAdapter({ failures: 2 });
    const supervisor = createChannelSupervisor({ channels: [{ adapter, reconnect: SETTINGS }], logger });
    await supervisor.start(handler);
    expect(supervisor.details()).toEqual([
      {
        name: 'slack',
        state: 'retrying',
        reason: expect.stringContaining('ECONNREFUSED'),
        attempts: 1,
        since: expect.any(Number),
      },
    ]);
    await vi.runAllTimersAsync();
    expect(supervisor.details()).toEqual([
      { name: 'slack', state: 'connected', attempts: 0, since: expect.any(Number) },
    ]);
  });

  it('details: a refused token says so in its reason', async () => {
    vi.useFakeTimers();
    const { adapter } = flakyAdapter({ failures: 1, refused: true });
    const supervisor = createChannelSupervisor({ channels: [{ adapter, reconnect: SETTINGS }], logger });
    await supervisor.start(handler);
    expect(supervisor.details()[0]).toMatchObject({
      state: 'refused',
      reason: expect.stringMatching(/^refused the credentials \(.*invalid_auth/),
    });
  });

  it('retries a refused token at refusedDelayMs and says refused meanwhile', async () => {
    vi.useFakeTimers();
    const { adapter, starts } = flakyAdapter({ failures: 2, refused: true });
    const supervisor = createChannelSupervisor({
      channels: [{ adapter, reconnect: SETTINGS }],
      logger,
      random: () => 0,
    });
    await supervisor.start(handler);
    expect(supervisor.states()).toEqual({ slack: 'refused' });
    await vi.advanceTimersByTimeAsync(29_999);
    expect(starts).toHaveLength(1);
    await vi.runAllTimersAsync();
    expect(starts).toHaveLength(3);
    expect(supervisor.states()).toEqual({ slack: 'connected' });
  });

  it('plans no retry once stopped', async () => {
    vi.useFakeTimers();
    const { adapter, starts } = flakyAdapter({ failures: 100 });
    const supervisor = createChannelSupervisor({ channels: [{ adapter, reconnect: SETTINGS }], logger });
    await supervisor.start(handler);
    await vi.advanceTimersByTimeAsync(350);
    const before = starts.length;
    expect(before).toBeGreaterThan(1);
    await supervisor.stop();
    expect(vi.getTimerCount()).toBe(0);
    await vi.runAllTimersAsync();
    expect(starts).toHaveLength(before);
  });

  it('follows the connection after the start: down and up as the library says, lost means started again', async () => {
    vi.useFakeTimers();
    let listener: ((event: 'down' | 'up' | 'lost') => void) | undefined;
    let failNext = 0;
    const starts: number[] = [];
    const adapter: ChannelAdapter = {
      name: 'discord',
      async start() {
        starts.push(Date.now());
        if (failNext > 0) {
          failNext -= 1;
          throw new Error('ECONNREFUSED');
        }
      },
      stop: async () => {},
      send: async () => {},
      watch: (registered) => {
        listener = registered;
      },
    };
    const supervisor = createChannelSupervisor({
      channels: [{ adapter, reconnect: SETTINGS }],
      logger,
      random: () => 0.999999,
    });
    await supervisor.start(handler);
    listener?.('down');
    expect(supervisor.states()).toEqual({ discord: 'retrying' });
    listener?.('up');
    expect(supervisor.states()).toEqual({ discord: 'connected' });

    failNext = 2;
    const before = Date.now();
    listener?.('lost');
    expect(supervisor.states()).toEqual({ discord: 'retrying' });
    await vi.runAllTimersAsync();
    expect(supervisor.states()).toEqual({ discord: 'connected' });
    // Started again at once, then after 100 and 200 ms.
    expect(starts.slice(1).map((at) => at - before)).toEqual([0, 100, 300]);
    await supervisor.stop();
  });

  it('starts a deaf channel again at once, shows it deaf meanwhile, and counts it with its reason', async () => {
    let listener: ((event: ConnectionEvent, error?: unknown) => void) | undefined;
    let release: (() => void) | undefined;
    let starts = 0;
    const adapter: ChannelAdapter = {
      name: 'slack',
      async start() {
        starts += 1;
        if (starts > 1) await new Promise<void>((resolve) => (release = resolve));
      },
      stop: async () => {},
      send: async () => {},
      watch: (registered) => {
        listener = registered;
      },
    };
    const supervisor = createChannelSupervisor({ channels: [{ adapter, reconnect: SETTINGS }], logger });
    await supervisor.start(handler);
    expect(supervisor.details()[0]?.deafReconnects).toBeUndefined();
    listener?.('deaf', new Error('nothing arrived for 180 s while Slack shows a message in C1'));
    expect(supervisor.details()[0]).toMatchObject({
      state: 'deaf',
      reason: 'nothing arrived for 180 s while Slack shows a message in C1',
      deafReconnects: 1,
      lastDeaf: { reason: 'nothing arrived for 180 s while Slack shows a message in C1' },
    });
    await vi.waitFor(() => expect(release).toBeDefined());
    release?.();
    await vi.waitFor(() => expect(supervisor.states()).toEqual({ slack: 'connected' }));
    expect(supervisor.details()[0]).toMatchObject({ deafReconnects: 1 });
    expect(starts).toBe(2);
    await supervisor.stop();
  });

  it('fails the start when a channel without reconnect settings (the web chat) cannot start', async () => {
    const { adapter } = flakyAdapter({ failures: 1 });
    const supervisor = createChannelSupervisor({ channels: [{ adapter }], logger });
    await expect(supervisor.start(handler)).rejects.toThrow('ECONNREFUSED');
  });
});
