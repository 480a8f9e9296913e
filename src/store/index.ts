export { type CreateStoreOptions, createStore, describeStoreUrl, storeUrlSecrets } from './create-store.js';
export { describeRedis, probeRedisWithoutPassword } from './redis-store.js';
export type { KeyValueNamespace, Store, StoreKind } from './types.js';
