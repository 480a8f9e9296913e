import { expect } from 'vitest';
import type { NamespaceIndex, PageEntry, Store } from '../../src/records/store/index.js';

/** The key/value contract every store kind keeps. */
export async function checkStoreContract(store: Store): Promise<void> {
  const sessions = store.namespace<{ n: number }>('sessions');
  const transcripts = store.namespace<string>('transcripts');
  await sessions.set('agent:main:webchat:direct:local', { n: 1 });
  await sessions.set('agent:main:slack:channel:C1:thread:17.5', { n: 2 });
  await transcripts.set('agent:main:webchat:direct:local', 'same key, other namespace');

  expect(await sessions.get('agent:main:webchat:direct:local')).toEqual({ n: 1 });
  expect(await sessions.getMany(['agent:main:slack:channel:C1:thread:17.5', 'missing'])).toEqual([
    { n: 2 },
    undefined,
  ]);
  expect(await transcripts.get('agent:main:webchat:direct:local')).toBe('same key, other namespace');
  expect(await sessions.getMany([])).toEqual([]);

  const keys: string[] = [];
  for await (const [key] of sessions.entries()) keys.push(key);
  expect(keys.sort()).toEqual(['agent:main:slack:channel:C1:thread:17.5', 'agent:main:webchat:direct:local']);

  await sessions.delete('agent:main:webchat:direct:local');
  expect(await sessions.get('agent:main:webchat:direct:local')).toBeUndefined();
  expect(store.namespace('sessions')).toBe(sessions);
  expect(() => store.namespace('Bad Name')).toThrow(/bad namespace/);

  // A value read back is a copy: changing it does not change the store.
  const copy = (await sessions.get('agent:main:slack:channel:C1:thread:17.5')) as { n: number };
  copy.n = 99;
  expect(await sessions.get('agent:main:slack:channel:C1:thread:17.5')).toEqual({ n: 2 });
}

/** The value the index tests store: its group is `list`, its order `at`. */
export interface Item {
  list: string;
  at: number;
}

export const itemIndex: NamespaceIndex<Item> = {
  group: (_key, value) => value.list,
  order: (_key, value) => value.at,
};

export const keysOf = (entries: readonly PageEntry<unknown>[]) => entries.map((entry) => entry.key);

/** The index contract: pages in order, cursors, ties, moves between lists, touch and delete. */
export async function checkIndexContract(store: Store): Promise<void> {
  const items = store.namespace<Item>('indexed-items', { index: itemIndex });
  expect(store.namespace('indexed-items')).toBe(items);
  expect(() => store.namespace('indexed-items', { index: { order: () => 0 } })).toThrow(/another index/);
  await expect(store.namespace('plain-items').page({ limit: 1 })).rejects.toMatchObject({
    code: 'STORE_NOT_INDEXED',
  });

  // Written concurrently, as group commit sees them; ties on `at` are ordered by key.
  await Promise.all(
    ['a', 'b', 'c', 'd', 'e'].map((key, index) =>
      items.set(key, { list: 'one', at: index < 2 ? 10 : index * 10 }),
    ),
  );
  await items.set('x', { list: 'two', at: 5 });

  const first = await items.page({ group: 'one', limit: 2 });
  expect(keysOf(first.entries)).toEqual(['e', 'd']);
  expect(first.entries[0]).toEqual({ key: 'e', value: { list: 'one', at: 40 }, order: 40 });
  const second = await items.page({ group: 'one', limit: 2, ...(first.next ? { after: first.next } : {}) });
  expect(keysOf(second.entries)).toEqual(['c', 'b']);
  const third = await items.page({ group: 'one', limit: 2, ...(second.next ? { after: second.next } : {}) });
  expect(keysOf(third.entries)).toEqual(['a']);
  expect(third.next).toBeUndefined();
  expect(keysOf((await items.page({ group: 'one', limit: 5 })).entries)).toEqual(['e', 'd', 'c', 'b', 'a']);
  expect((await items.page({ group: 'one', limit: 5 })).next).toBeUndefined();
  expect(keysOf((await items.page({ group: 'two', limit: 10 })).entries)).toEqual(['x']);
  expect((await items.page({ group: 'none', limit: 10 })).entries).toEqual([]);
  // A cursor from a numeric position only (no key) continues below it.
  expect(
    keysOf((await items.page({ group: 'one', limit: 10, after: { order: 30, key: '' } })).entries),
  ).toEqual(['c', 'b', 'a']);

  // touch moves an entry, keeping its value; a write recomputes the position; delete removes it.
  await items.touch('a', 100);
  await items.touch('missing', 100);
  const touched = await items.page({ group: 'one', limit: 1 });
  expect(touched.entries).toEqual([{ key: 'a', value: { list: 'one', at: 10 }, order: 100 }]);
  await items.set('b', { list: 'two', at: 1 });
  expect(keysOf((await items.page({ group: 'two', limit: 10 })).entries)).toEqual(['x', 'b']);
  expect(keysOf((await items.page({ group: 'one', limit: 10 })).entries)).toEqual(['a', 'e', 'd', 'c']);
  await items.delete('e');
  expect(keysOf((await items.page({ group: 'one', limit: 10 })).entries)).toEqual(['a', 'd', 'c']);
  expect(await items.get('e')).toBeUndefined();

  await expect(items.page({ group: 'one', limit: 0 })).rejects.toThrow(/limit 0/);
  // An order that is not a finite number could never be paged to: refused, naming namespace and key.
  await expect(items.set('nan', { list: 'one', at: Number.NaN })).rejects.toThrow(
    /order NaN for "nan" in namespace "indexed-items"/,
  );
  await expect(items.touch('a', Number.POSITIVE_INFINITY)).rejects.toThrow(/must be a finite number/);
  expect(await items.get('nan')).toBeUndefined();
}
