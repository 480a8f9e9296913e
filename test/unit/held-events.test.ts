import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import { createHeldEvents } from '../../src/surfaces/channels/held-events.js';
import { type ChannelMemory, createLocalMemory } from '../../src/surfaces/channels/memory.js';

const { logger } = createLogger({ level: 'silent', destination: { write: () => {} } });
const held = (memory: ChannelMemory, limit = 10) =>
  createHeldEvents<{ text: string }>({ memory, key: 'held-events', ttlMs: 60_000, limit, logger });

describe('held events', () => {
  it('keeps events added together, and a new process (the same memory) finds those not removed', async () => {
    const memory = createLocalMemory();
    const first = held(memory);
    await Promise.all(['a', 'b', 'c'].map((id) => first.add(id, { text: id })));
    await first.remove('b');
    const second = held(memory);
    expect(await second.list()).toEqual([
      { id: 'a', value: { text: 'a' } },
      { id: 'c', value: { text: 'c' } },
    ]);
  });

  it('refuses an event past its limit, naming the key, and a failed write is not kept', async () => {
    const memory = createLocalMemory();
    const events = held(memory, 1);
    await events.add('a', { text: 'a' });
    await expect(events.add('b', { text: 'b' })).rejects.toThrow(/1 events already wait .*held-events/);
    const broken: ChannelMemory = { get: memory.get, set: () => Promise.reject(new Error('disk full')) };
    const failing = held(broken);
    await expect(failing.add('c', { text: 'c' })).rejects.toThrow('disk full');
    expect(await failing.list()).toEqual([{ id: 'a', value: { text: 'a' } }]);
  });
});
