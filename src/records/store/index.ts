export { type CreateStoreOptions, createStore, describeStoreUrl, storeUrlSecrets } from './create-store.js';
export { createKeyQueue, type KeyQueue } from './key-queue.js';
export { probeRedisWithoutPassword } from './redis-probe.js';
export { describeRedis } from './redis-url.js';
export {
  type KeyValueNamespace,
  MAX_PAGE_LIMIT,
  type NamespaceIndex,
  type NamespaceOptions,
  type Page,
  type PageCursor,
  type PageEntry,
  type PageOptions,
  type Store,
  type StoreKind,
} from './types.js';
