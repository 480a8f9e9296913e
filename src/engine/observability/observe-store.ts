import type { KeyValueNamespace, Store } from '../../records/store/index.js';
import type { Observation } from './observation.js';

/**
 * The store with each namespace operation timed (`switchboard_store_operation_duration_seconds`
 * by namespace and operation), failed ones too; `entries` (a scan, read at the caller's pace) is
 * not. Namespaces keep the store's contract: the same name gives the same (observed) object.
 */
export function observeStore(observation: Observation, store: Store): Store {
  const observed = new Map<string, KeyValueNamespace<unknown>>();
  return {
    kind: store.kind,
    location: store.location,
    namespace<Value>(name: string, options?: Parameters<Store['namespace']>[1]) {
      // Asked every time: the store checks that the index stays the one of the first call.
      const inner = store.namespace<Value>(name, options as never);
      const known = observed.get(name) as KeyValueNamespace<Value> | undefined;
      if (known) return known;
      const timed = timeNamespace(observation, name, inner);
      observed.set(name, timed as KeyValueNamespace<unknown>);
      return timed;
    },
    close: () => store.close(),
  };
}

function timeNamespace<Value>(
  observation: Observation,
  name: string,
  inner: KeyValueNamespace<Value>,
): KeyValueNamespace<Value> {
  const { storeDuration } = observation.metrics.instruments;
  const timed = <Args extends unknown[], Result>(
    operation: string,
    run: (...args: Args) => Promise<Result>,
  ) => {
    // The labelled series looked up once, not at every call (the store is on every path).
    const series = storeDuration.labels({ namespace: name, operation });
    return async (...args: Args): Promise<Result> => {
      const started = performance.now();
      try {
        return await run(...args);
      } finally {
        series.observe((performance.now() - started) / 1000);
      }
    };
  };
  return {
    get: timed('get', (key) => inner.get(key)),
    getMany: timed('getMany', (keys) => inner.getMany(keys)),
    set: timed('set', (key, value) => inner.set(key, value)),
    delete: timed('delete', (key) => inner.delete(key)),
    page: timed('page', (options) => inner.page(options)),
    touch: timed('touch', (key, order) => inner.touch(key, order)),
    entries: () => inner.entries(),
  };
}
