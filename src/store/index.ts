export { type CreateStoreOptions, createStore } from './create-store.js';
export type { KeyValueNamespace, Store, StoreKind } from './types.js';
