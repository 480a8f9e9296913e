import type { KeyValueNamespace, NamespaceOptions, Store } from '../../src/records/store/index.js';

/** One call a namespace took: what, where, and (for reads) how many values it returned. */
export interface StoreCall {
  op: 'get' | 'getMany' | 'set' | 'delete' | 'entries' | 'page' | 'touch';
  namespace: string;
  key?: string;
  /** Values read (get: 0 or 1, getMany and page: how many came back, entries: every one). */
  read?: number;
  /** Bytes of the value written (set). */
  bytes?: number;
}

/** A real store whose namespace calls are recorded, to see what an operation costs. */
export function recordingStore(inner: Store): { store: Store; calls: StoreCall[] } {
  const calls: StoreCall[] = [];
  const wrapped = new Map<string, KeyValueNamespace<unknown>>();
  const wrap = <Value>(name: string, namespace: KeyValueNamespace<Value>): KeyValueNamespace<Value> => ({
    async get(key) {
      const value = await namespace.get(key);
      calls.push({ op: 'get', namespace: name, key, read: value === undefined ? 0 : 1 });
      return value;
    },
    async getMany(keys) {
      const values = await namespace.getMany(keys);
      calls.push({
        op: 'getMany',
        namespace: name,
        read: values.filter((value) => value !== undefined).length,
      });
      return values;
    },
    async set(key, value) {
      calls.push({ op: 'set', namespace: name, key, bytes: JSON.stringify(value).length });
      await namespace.set(key, value);
    },
    async delete(key) {
      calls.push({ op: 'delete', namespace: name, key });
      await namespace.delete(key);
    },
    async *entries() {
      const call: StoreCall = { op: 'entries', namespace: name, read: 0 };
      calls.push(call);
      for await (const entry of namespace.entries()) {
        call.read = (call.read ?? 0) + 1;
        yield entry;
      }
    },
    async page(options) {
      const page = await namespace.page(options);
      calls.push({ op: 'page', namespace: name, read: page.entries.length });
      return page;
    },
    async touch(key, order) {
      calls.push({ op: 'touch', namespace: name, key });
      await namespace.touch(key, order);
    },
  });
  const store: Store = {
    kind: inner.kind,
    location: inner.location,
    namespace<Value>(name: string, options?: NamespaceOptions<Value>) {
      const namespace = inner.namespace<Value>(name, options);
      const existing = wrapped.get(name);
      if (existing) return existing as KeyValueNamespace<Value>;
      const created = wrap(name, namespace);
      wrapped.set(name, created as KeyValueNamespace<unknown>);
      return created;
    },
    close: () => inner.close(),
  };
  return { store, calls };
}

/** Values read from a namespace by the calls since `from`. */
export function valuesRead(calls: readonly StoreCall[], namespace: string, from = 0): number {
  return calls
    .slice(from)
    .reduce((sum, call) => sum + (call.namespace === namespace ? (call.read ?? 0) : 0), 0);
}
