import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import { createChannelNames, createLocalMemory, readNames } from '../../src/surfaces/channels/index.js';

/** Display names kept in a channel's memory: looked up once in the background, read back by the control plane. */
const { logger } = createLogger({ level: 'silent', destination: { write: () => undefined } });

describe('channel names', () => {
  it('looks a user and a chat up once, in the background, and keeps a miss without a name', async () => {
    const memory = createLocalMemory();
    const asked: string[] = [];
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const names = createChannelNames({
      memory,
      logger,
      lookup: {
        async user(id) {
          asked.push(`user ${id}`);
          await gate;
          return id === 'U1' ? 'Ann' : undefined;
        },
        async chat(id) {
          asked.push(`chat ${id}`);
          return `#${id.toLowerCase()}`;
        },
      },
    });
    // learn returns at once: nothing waits for Slack.
    names.learn({ user: 'U1', chat: 'C1' });
    names.learn({ user: 'U1', chat: 'C1' });
    names.learn({ user: 'U2' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await readNames(memory).user('U1')).toBeUndefined();
    release();
    await names.settled();
    expect(await readNames(memory).user('U1')).toBe('Ann');
    expect(await readNames(memory).chat('C1')).toBe('#c1');
    expect(await readNames(memory).user('U2')).toBeUndefined();
    names.learn({ user: 'U1', chat: 'C1' });
    names.learn({ user: 'U2' });
    await names.settled();
    expect(asked.sort()).toEqual(['chat C1', 'user U1', 'user U2']);
  });

  it('keeps names handed over with an event, and a failing lookup costs nothing but the name', async () => {
    const memory = createLocalMemory();
    const names = createChannelNames({
      memory,
      logger,
      lookup: {
        user: () => Promise.reject(new Error('ratelimited')),
        chat: () => Promise.reject(new Error('ratelimited')),
      },
    });
    names.keep({ user: { id: 'D9', name: 'Bo' }, chat: { id: 'G1', name: '#ops' } });
    names.learn({ user: 'U5' });
    await names.settled();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await readNames(memory).user('D9')).toBe('Bo');
    expect(await readNames(memory).chat('G1')).toBe('#ops');
    expect(await readNames(memory).user('U5')).toBeUndefined();
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('writes a name an event hands over again before its week in memory ends', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const memory = createLocalMemory();
    const names = createChannelNames({ memory, logger });
    const day = 24 * 3_600_000;
    for (let days = 0; days <= 9; days += 1) {
      names.keep({ user: { id: 'D9', name: 'Bo' } });
      expect(await readNames(memory).user('D9')).toBe('Bo');
      vi.setSystemTime(Date.now() + day);
    }
  });
});
