/** A key/value namespace: keys are strings, values are JSON-serializable. */
export interface KeyValueNamespace<Value = unknown> {
  get(key: string): Promise<Value | undefined>;
  /** Values in the order of `keys`, undefined where absent. */
  getMany(keys: readonly string[]): Promise<(Value | undefined)[]>;
  set(key: string, value: Value): Promise<void>;
  delete(key: string): Promise<void>;
  /** Every entry of the namespace, in no particular order. */
  entries(): AsyncIterable<[string, Value]>;
}

export type StoreKind = 'sqlite' | 'memory' | 'redis';

export interface Store {
  readonly kind: StoreKind;
  /** Where the data lives, safe to log (no credentials). */
  readonly location: string;
  /** The namespace `name`; the same object for the same name. Names are plain words. */
  namespace<Value = unknown>(name: string): KeyValueNamespace<Value>;
  close(): Promise<void>;
}
