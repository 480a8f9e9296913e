import { SwitchboardError } from '../../base/errors/index.js';
import {
  type KeyValueNamespace,
  MAX_PAGE_LIMIT,
  type NamespaceIndex,
  type NamespaceOptions,
  type PageCursor,
  type PageOptions,
} from './types.js';

const NAMESPACE_NAME = /^[a-z][a-z0-9-]*$/;

/** Opens the namespace `name` of one store kind, with the index its first caller named. */
export type OpenNamespace = (name: string, index: NamespaceIndex<unknown> | undefined) => KeyValueNamespace;

export interface Namespaces {
  namespace<Value>(name: string, options?: NamespaceOptions<Value>): KeyValueNamespace<Value>;
  /** Refuses every later `namespace` call; false when it was closed already (close once). */
  close(): boolean;
}

/**
 * The namespaces of one store: names checked, one object per name, the index fixed by the first
 * call that names one (a namespace first opened without an index takes one later only before use).
 */
export function createNamespaces(open: OpenNamespace): Namespaces {
  const opened = new Map<string, { namespace: KeyValueNamespace; index?: NamespaceIndex<unknown> }>();
  let closed = false;
  return {
    namespace<Value>(name: string, options: NamespaceOptions<Value> = {}) {
      if (closed)
        throw new SwitchboardError('GATEWAY_STATE', `store: namespace "${name}" requested after close`);
      if (!NAMESPACE_NAME.test(name))
        throw new SwitchboardError('GATEWAY_STATE', `store: bad namespace name "${name}"`);
      const index = options.index as NamespaceIndex<unknown> | undefined;
      const existing = opened.get(name);
      if (existing) {
        if (index && existing.index !== index)
          throw new SwitchboardError(
            'STORE_NOT_INDEXED',
            `store: namespace "${name}" was opened with ${existing.index ? 'another index' : 'no index'}`,
          );
        return existing.namespace as KeyValueNamespace<Value>;
      }
      const namespace = open(name, index);
      opened.set(name, { namespace, ...(index ? { index } : {}) });
      return namespace as KeyValueNamespace<Value>;
    },
    close() {
      if (closed) return false;
      closed = true;
      return true;
    },
  };
}

/** The page limit, checked: a bug in the caller when outside 1–MAX_PAGE_LIMIT. */
export function pageLimit(name: string, options: PageOptions): number {
  const { limit } = options;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT)
    throw new SwitchboardError(
      'GATEWAY_STATE',
      `store: page of "${name}" with limit ${limit} (use 1–${MAX_PAGE_LIMIT})`,
    );
  return limit;
}

/** Whether an entry comes after `cursor` in page order (order descending, then key descending). */
export function isAfterCursor(entry: PageCursor, cursor: PageCursor | undefined): boolean {
  if (!cursor) return true;
  return entry.order < cursor.order || (entry.order === cursor.order && entry.key < cursor.key);
}

/** Page order: highest order first, equal orders by key, highest first. */
export function comparePageOrder(a: PageCursor, b: PageCursor): number {
  if (a.order !== b.order) return b.order - a.order;
  return a.key < b.key ? 1 : a.key > b.key ? -1 : 0;
}

export function notIndexed(name: string): SwitchboardError {
  return new SwitchboardError(
    'STORE_NOT_INDEXED',
    `store: namespace "${name}" has no index to page or touch`,
  );
}

/** The group and order an index gives an entry of namespace `name`. */
export function indexPosition<Value>(
  name: string,
  index: NamespaceIndex<Value>,
  key: string,
  value: Value,
): { group: string; order: number } {
  const order = index.order(key, value);
  checkOrder(name, key, order);
  return { group: index.group?.(key, value) ?? '', order };
}

/** An order that is not a finite number is a bug of the index: such an entry could never be paged to. */
export function checkOrder(name: string, key: string, order: number): void {
  if (!Number.isFinite(order))
    throw new SwitchboardError(
      'GATEWAY_STATE',
      `store: order ${String(order)} for "${key}" in namespace "${name}" (an index order must be a finite number)`,
    );
}
