import { createClient } from '@keyv/redis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import { createStore, type Store } from '../../src/records/store/index.js';
import { makeTempDir } from '../helpers/machine.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { type Item, itemIndex, keysOf } from '../helpers/store-contract.js';

const { logger } = createLogger({ level: 'silent' });

describe('the Redis store: layout, crash leftovers, existing data (real redis-server)', () => {
  let redis: RedisServer;
  let raw: ReturnType<typeof createClient>;
  const stores: Store[] = [];
  beforeAll(async () => {
    redis = await startRedisServer();
    raw = createClient({ url: redis.url });
    await raw.connect();
  });
  afterEach(async () => {
    vi.useRealTimers();
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });
  afterAll(async () => {
    await raw?.close();
    await redis?.stop();
  });
  const open = async () => {
    const store = await createStore({
      url: redis.url,
      stateDir: await makeTempDir('switchboard-redis-'),
      logger,
    });
    stores.push(store);
    return store;
  };

  it("keeps values in the current release's layout and each list in a sorted set beside them", async () => {
    const items = (await open()).namespace<Item>('layout', { index: itemIndex });
    await items.set('k1', { list: 'one', at: 7 });
    expect(JSON.parse((await raw.get('layout::k1')) as string)).toEqual({ value: { list: 'one', at: 7 } });
    expect(await raw.zRangeWithScores('layout:index:one', 0, -1)).toEqual([{ value: 'k1', score: 7 }]);
    await items.set('k1', { list: 'two', at: 8 });
    expect(await raw.exists('layout:index:one')).toBe(0);
    await items.delete('k1');
    expect(await raw.exists(['layout::k1', 'layout:index:two'])).toBe(0);
    // entries lists values only, never the lists or the marker beside them.
    await items.set('k2', { list: 'one', at: 1 });
    await items.page({ group: 'one', limit: 1 });
    const listed: string[] = [];
    for await (const [key] of items.entries()) listed.push(key);
    expect(listed).toEqual(['k2']);
  });

  it('orders the commands of a write for a crash between them: list then value, value then list', async () => {
    const items = (await open()).namespace<Item>('ordered', { index: itemIndex });
    const monitor = createClient({ url: redis.url });
    await monitor.connect();
    const commands: string[] = [];
    await monitor.monitor((line) => {
      const [command, key] = line
        .split(' ')
        .slice(3, 5)
        .map((word) => word.replaceAll('"', ''));
      if (key?.startsWith('ordered:')) commands.push(`${command?.toUpperCase()} ${key}`);
    });
    await items.set('k', { list: 'one', at: 1 });
    await items.set('k', { list: 'two', at: 2 });
    await items.delete('k');
    await expect.poll(() => commands.length).toBeGreaterThanOrEqual(8);
    await monitor.destroy();
    expect(commands.filter((command) => !command.startsWith('GET') && !command.startsWith('MGET'))).toEqual([
      'ZADD ordered:index:one',
      'SET ordered::k',
      'ZADD ordered:index:two',
      'SET ordered::k',
      'ZREM ordered:index:one',
      'UNLINK ordered::k',
      'ZREM ordered:index:two',
    ]);
  });

  it('runs the writes of one key one at a time: concurrent moves leave one member', async () => {
    const items = (await open()).namespace<Item>('moved', { index: itemIndex });
    await Promise.all(['one', 'two', 'three', 'four'].map((list, at) => items.set('k', { list, at })));
    expect(await items.get('k')).toEqual({ list: 'four', at: 3 });
    for (const list of ['one', 'two', 'three']) expect(await raw.exists(`moved:index:${list}`)).toBe(0);
    expect(await raw.zRangeWithScores('moved:index:four', 0, -1)).toEqual([{ value: 'k', score: 3 }]);
  });

  it('skips what a crash between two commands leaves and still fills the page', async () => {
    const items = (await open()).namespace<Item>('crashed', { index: itemIndex });
    for (const [key, at] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
      ['d', 4],
    ] as const)
      await items.set(key, { list: 'one', at });
    // A write that crashed after its list command: a member without a value, in the middle of the page.
    await raw.zAdd('crashed:index:one', { score: 3.5, value: 'lost' });
    // A move to another list that crashed before removing the old member: `b` now belongs to `two`.
    await raw.set('crashed::b', JSON.stringify({ value: { list: 'two', at: 2 } }));
    await raw.zAdd('crashed:index:two', { score: 2, value: 'b' });

    const first = await items.page({ group: 'one', limit: 2 });
    expect(keysOf(first.entries)).toEqual(['d', 'c']);
    const second = await items.page({ group: 'one', limit: 2, ...(first.next ? { after: first.next } : {}) });
    expect(keysOf(second.entries)).toEqual(['a']);
    expect(second.next).toBeUndefined();
    expect(keysOf((await items.page({ group: 'one', limit: 3 })).entries)).toEqual(['d', 'c', 'a']);
    expect((await items.page({ group: 'one', limit: 3 })).next).toBeUndefined();
    expect(keysOf((await items.page({ group: 'two', limit: 3 })).entries)).toEqual(['b']);
    // A touch never brings back a member for a value that is gone.
    await items.touch('lost', 99);
    expect(await raw.zScore('crashed:index:one', 'lost')).toBe(3.5);
  });

  it('removes a member without a value only when a page saw it missing a minute earlier', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const items = (await open()).namespace<Item>('cleaned', { index: itemIndex });
    await items.set('kept', { list: 'one', at: 1 });
    await raw.zAdd('cleaned:index:one', [
      { score: 2, value: 'lost' },
      { score: 3, value: 'late' },
    ]);
    expect(keysOf((await items.page({ group: 'one', limit: 10 })).entries)).toEqual(['kept']);
    vi.setSystemTime(Date.now() + 30_000);
    await items.page({ group: 'one', limit: 10 });
    expect(await raw.zCard('cleaned:index:one')).toBe(3);
    // `late` is written meanwhile (another instance finishing its write): it stays.
    await raw.set('cleaned::late', JSON.stringify({ value: { list: 'one', at: 3 } }));
    vi.setSystemTime(Date.now() + 31_000);
    expect(keysOf((await items.page({ group: 'one', limit: 10 })).entries)).toEqual(['late', 'kept']);
    expect(await raw.zRange('cleaned:index:one', 0, -1)).toEqual(['kept', 'late']);
  });

  it('pages through ties whose cursor entry moved or went away, in byte order of the keys', async () => {
    const items = (await open()).namespace<Item>('ties', { index: itemIndex });
    const keys = ['a', 'B', 'c', 'D', 'e', 'F', 'g', 'H', 'é'];
    await Promise.all(keys.map((key) => items.set(key, { list: 'one', at: 5 })));
    await items.set('low', { list: 'one', at: 1 });
    const expected = [...[...keys].sort().reverse(), 'low'];

    const seen: string[] = [];
    let page = await items.page({ group: 'one', limit: 3 });
    for (;;) {
      seen.push(...keysOf(page.entries));
      const next = page.next;
      if (!next) break;
      // The cursor's own entry leaves its place: the next page must still start right after it.
      if (seen.length === 3) await items.delete(next.key);
      if (seen.length === 6) await items.touch(next.key, 100);
      page = await items.page({ group: 'one', limit: 3, after: next });
    }
    expect(seen).toEqual(expected);
  });

  it('indexes the values written before the namespace had its index, once', async () => {
    const before = (await open()).namespace<Item>('existing');
    for (let at = 1; at <= 2500; at += 1) await before.set(`k${at}`, { list: at % 2 ? 'odd' : 'even', at });
    await stores.pop()?.close();
    const items = (await open()).namespace<Item>('existing', { index: itemIndex });
    const first = await items.page({ group: 'odd', limit: 3 });
    expect(keysOf(first.entries)).toEqual(['k2499', 'k2497', 'k2495']);
    expect(await raw.zCard('existing:index:even')).toBe(1250);
    expect(await raw.exists('existing:indexed')).toBe(1);
    let listed = 0;
    for await (const _entry of items.entries()) listed += 1;
    expect(listed).toBe(2500);
  });

  it('refuses an order that is not a finite number, naming the namespace and key', async () => {
    const items = (await open()).namespace<Item>('orders', { index: itemIndex });
    await expect(items.set('k', { list: 'one', at: Number.NaN })).rejects.toMatchObject({
      message: expect.stringMatching(/order NaN for "k" in namespace "orders"/),
    });
    await items.set('k', { list: 'one', at: 1 });
    await expect(items.touch('k', Number.POSITIVE_INFINITY)).rejects.toThrow(/finite/);
    expect(await raw.zScore('orders:index:one', 'k')).toBe(1);
  });
});
