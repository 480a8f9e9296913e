/**
 * How the entries of a namespace are listed: each entry sits in one group (a list) at a numeric
 * position, and `page` reads a group from the highest position down. Computed from every value
 * written; `touch` moves an entry without rewriting its value.
 */
export interface NamespaceIndex<Value> {
  /** The list the entry belongs to; every entry of the namespace is in one list when absent (`''`). */
  group?(key: string, value: Value): string;
  /** Its position in the list (a time in ms, a sequence number). */
  order(key: string, value: Value): number;
}

export interface NamespaceOptions<Value> {
  index?: NamespaceIndex<Value>;
}

/** Where a page ends: the next page starts after this entry (lower order, or same order and lower key). */
export interface PageCursor {
  order: number;
  key: string;
}

export interface PageOptions {
  /** The list to read (`''` when the index has no groups). */
  group?: string;
  /** At most this many entries (1–1000). */
  limit: number;
  /** Continue after this entry (the `next` of the previous page). */
  after?: PageCursor;
}

export interface PageEntry<Value> {
  key: string;
  value: Value;
  order: number;
}

export interface Page<Value> {
  /** Highest order first; equal orders by key, highest first. */
  entries: PageEntry<Value>[];
  /** Where the next page starts; absent on the last page. */
  next?: PageCursor;
}

/** A key/value namespace: keys are strings, values are JSON-serializable. */
export interface KeyValueNamespace<Value = unknown> {
  get(key: string): Promise<Value | undefined>;
  /** Values in the order of `keys`, undefined where absent. */
  getMany(keys: readonly string[]): Promise<(Value | undefined)[]>;
  /** Resolves once the write is durable (it may share a commit with other writes). */
  set(key: string, value: Value): Promise<void>;
  delete(key: string): Promise<void>;
  /** Every entry of the namespace, in no particular order. */
  entries(): AsyncIterable<[string, Value]>;
  /** One page of a list of an indexed namespace; STORE_NOT_INDEXED without an index. */
  page(options: PageOptions): Promise<Page<Value>>;
  /** Moves an existing entry to `order` in its list, keeping its value; nothing when absent. */
  touch(key: string, order: number): Promise<void>;
}

export type StoreKind = 'sqlite' | 'memory' | 'redis';

export interface Store {
  readonly kind: StoreKind;
  /** Where the data lives, safe to log (no credentials). */
  readonly location: string;
  /**
   * The namespace `name`; the same object for the same name. Names are plain words. The index is
   * fixed by the first call that names one; a later call with another index is STORE_NOT_INDEXED.
   */
  namespace<Value = unknown>(name: string, options?: NamespaceOptions<Value>): KeyValueNamespace<Value>;
  close(): Promise<void>;
}

/** The largest page any store returns. */
export const MAX_PAGE_LIMIT = 1000;
