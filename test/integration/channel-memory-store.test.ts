import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createStoreChannelMemory } from '../../src/app/channel-memory.js';
import { createLogger } from '../../src/base/logging/index.js';
import { createStore, type Store } from '../../src/records/store/index.js';
import { makeTempDir, removeDir } from '../helpers/machine.js';
import { startRedisServer } from '../helpers/redis-server.js';

/** The store-backed channel memory on a real SQLite file: entries expire, and their number is bounded. */

const { logger } = createLogger({ level: 'silent' });
let store: Store | undefined;
let dir: string | undefined;
afterEach(async () => {
  await store?.close();
  if (dir) await removeDir(dir);
  store = undefined;
  dir = undefined;
});

async function openStore(): Promise<Store> {
  dir = await makeTempDir('switchboard-channel-memory-');
  store = await createStore({ url: `sqlite://${path.join(dir, 'store.sqlite')}`, stateDir: dir, logger });
  return store;
}

async function count(opened: Store): Promise<number> {
  let entries = 0;
  for await (const _entry of opened.namespace('channel-slack').entries()) entries += 1;
  return entries;
}

describe('the store-backed channel memory', () => {
  it('forgets an entry once its TTL has passed, and keeps it before', async () => {
    const opened = await openStore();
    let now = 1_000_000;
    const memory = createStoreChannelMemory({ store: opened, channel: 'slack', now: () => now });
    await memory.set('event:Ev1', '1', 1000);
    now += 999;
    expect(await memory.get('event:Ev1')).toBe('1');
    now += 1;
    expect(await memory.get('event:Ev1')).toBeUndefined();
    expect(await count(opened)).toBe(0);
  });

  it('never holds more than maxEntries + sweepEvery entries; the sweeps drop the expired and then the oldest', async () => {
    const opened = await openStore();
    let now = 1_000_000;
    const memory = createStoreChannelMemory({
      store: opened,
      channel: 'slack',
      maxEntries: 10,
      sweepEvery: 5,
      now: () => now,
    });
    let most = 0;
    for (let index = 0; index < 60; index += 1) {
      now += 10;
      // Every third entry lives briefly, the others long.
      await memory.set(`thread:C1:${index}`, '1', index % 3 === 0 ? 5 : 1_000_000);
      most = Math.max(most, await count(opened));
    }
    expect(most).toBeLessThanOrEqual(15);
    // The newest long-lived entries survived, the oldest were dropped.
    expect(await memory.get('thread:C1:59')).toBe('1');
    expect(await memory.get('thread:C1:1')).toBeUndefined();
  });

  it('survives reopening the store (what a restart does)', async () => {
    const opened = await openStore();
    await createStoreChannelMemory({ store: opened, channel: 'discord' }).set('thread:1', '1', 60_000);
    await opened.close();
    store = await createStore({
      url: `sqlite://${path.join(dir as string, 'store.sqlite')}`,
      stateDir: dir as string,
      logger,
    });
    expect(await createStoreChannelMemory({ store, channel: 'discord' }).get('thread:1')).toBe('1');
  });
});

describe('the store-backed channel memory on Redis (real redis-server)', () => {
  it('expires entries and keeps their number bounded there too', async () => {
    const redis = await startRedisServer();
    try {
      dir = await makeTempDir('switchboard-channel-memory-');
      store = await createStore({ url: redis.url, stateDir: dir, logger });
      let now = 1_000_000;
      const memory = createStoreChannelMemory({
        store,
        channel: 'slack',
        maxEntries: 10,
        sweepEvery: 5,
        now: () => now,
      });
      for (let index = 0; index < 30; index += 1) {
        now += 10;
        await memory.set(`event:${index}`, '1', 1_000_000);
      }
      expect(await count(store)).toBeLessThanOrEqual(15);
      expect(await memory.get('event:29')).toBe('1');
      now += 2_000_000;
      expect(await memory.get('event:29')).toBeUndefined();
    } finally {
      await store?.close();
      store = undefined;
      await redis.stop();
    }
  });
});
