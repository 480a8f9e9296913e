import {
  checkOrder,
  comparePageOrder,
  createNamespaces,
  indexPosition,
  isAfterCursor,
  notIndexed,
  pageLimit,
} from './namespaces.js';
import type { KeyValueNamespace, NamespaceIndex, Page, PageCursor, Store } from './types.js';

interface MemoryEntry {
  /** The value as JSON, so that callers never share an object with the store (as with SQLite). */
  json: string;
  group: string;
  order: number;
}

/** One list of an indexed namespace: positions by key, and the sorted order once a page asked for it. */
interface MemoryList {
  orders: Map<string, number>;
  sorted?: PageCursor[];
}

/** The store of `memory://`: tests and benchmarks; nothing survives the process. */
export function createMemoryStore(): Store {
  const namespaces = createNamespaces((name, index) => createMemoryNamespace(name, index));
  return {
    kind: 'memory',
    location: 'memory://',
    namespace: (name, options) => namespaces.namespace(name, options),
    async close() {
      namespaces.close();
    },
  };
}

function createMemoryNamespace(name: string, index: NamespaceIndex<unknown> | undefined): KeyValueNamespace {
  const entries = new Map<string, MemoryEntry>();
  const lists = new Map<string, MemoryList>();

  const place = (key: string, group: string, order: number) => {
    const list: MemoryList = lists.get(group) ?? { orders: new Map() };
    lists.set(group, list);
    list.orders.set(key, order);
    list.sorted = undefined;
  };
  const unplace = (key: string, group: string) => {
    const list = lists.get(group);
    if (!list?.orders.delete(key)) return;
    list.sorted = undefined;
  };
  const read = (key: string) => {
    const entry = entries.get(key);
    return entry === undefined ? undefined : JSON.parse(entry.json);
  };

  return {
    get: async (key) => read(key),
    getMany: async (keys) => keys.map(read),
    async set(key, value) {
      const position = index ? indexPosition(name, index, key, value) : { group: '', order: 0 };
      const previous = entries.get(key);
      if (index && previous && previous.group !== position.group) unplace(key, previous.group);
      entries.set(key, { json: JSON.stringify(value), ...position });
      if (index) place(key, position.group, position.order);
    },
    async delete(key) {
      const previous = entries.get(key);
      if (!previous) return;
      entries.delete(key);
      if (index) unplace(key, previous.group);
    },
    async *entries() {
      for (const [key, entry] of [...entries]) yield [key, JSON.parse(entry.json)];
    },
    async page(options) {
      if (!index) throw notIndexed(name);
      const limit = pageLimit(name, options);
      const list = lists.get(options.group ?? '');
      if (!list) return { entries: [] };
      list.sorted ??= [...list.orders].map(([key, order]) => ({ key, order })).sort(comparePageOrder);
      const page: Page<unknown> = { entries: [] };
      const start = firstAfter(list.sorted, options.after);
      for (const position of list.sorted.slice(start, start + limit)) {
        page.entries.push({ ...position, value: read(position.key) });
      }
      const last = page.entries.at(-1);
      if (last && start + limit < list.sorted.length) page.next = { order: last.order, key: last.key };
      return page;
    },
    async touch(key, order) {
      if (!index) throw notIndexed(name);
      checkOrder(name, key, order);
      const entry = entries.get(key);
      if (!entry) return;
      entry.order = order;
      place(key, entry.group, order);
    },
  };
}

/** The index of the first position after `cursor` in a sorted list (binary search). */
function firstAfter(sorted: readonly PageCursor[], cursor: PageCursor | undefined): number {
  if (!cursor) return 0;
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (isAfterCursor(sorted[middle] as PageCursor, cursor)) high = middle;
    else low = middle + 1;
  }
  return low;
}
