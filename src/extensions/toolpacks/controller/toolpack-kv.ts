import type { Store } from '../../../records/store/index.js';
import { callInvalid } from './project-message.js';

/**
 * The toolpack's own key/value namespace. Values are stored as JSON: `get` returns what
 * `JSON.stringify` keeps of the value that was set, whatever the store backend.
 */
export interface ToolpackKeyValue {
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown): Promise<void>;
  delete(key: string): Promise<void>;
}

/** The store namespace of a toolpack. Ids may hold capitals, `.` and `_`, which namespace names may not. */
export function toolpackNamespace(toolpackId: string): string {
  // Injective: each `-` is followed by `-` (a hyphen), `0` (`.`), `1` (`_`) or a lowercase letter
  // (that letter's capital).
  const encoded = toolpackId.replace(/[^a-z0-9]/g, (character) => {
    if (character === '-') return '--';
    if (character === '.') return '-0';
    if (character === '_') return '-1';
    return `-${character.toLowerCase()}`;
  });
  return `toolpack-${encoded}`;
}

/** `store.kv` of a controller: its own namespace; async throughout, so a bad key or value is a rejection like any store failure. */
export function createToolpackKeyValue(store: Store, toolpackId: string): ToolpackKeyValue {
  const namespace = store.namespace(toolpackNamespace(toolpackId));
  return Object.freeze({
    get: async (key: string) => namespace.get(checkKey(key)),
    set: async (key: string, value: unknown) => namespace.set(checkKey(key), asJson(value)),
    delete: async (key: string) => namespace.delete(checkKey(key)),
  });
}

function checkKey(key: unknown): string {
  if (typeof key !== 'string' || key === '') throw callInvalid('kv: key must be a non-empty string');
  return key;
}

function asJson(value: unknown): unknown {
  const text = JSON.stringify(value);
  if (text === undefined)
    throw callInvalid('kv: value must be JSON-serializable (use delete to remove a key)');
  return JSON.parse(text);
}
