// The config as the page edits it: plain JSON values addressed by key paths, changed by copy (a
// page state is never mutated), and the JSON schema nodes that describe them.

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };
export type KeyPath = readonly string[];

/** What `GET /api/config` puts where a secret is: sent back unchanged, the gateway keeps the secret. */
export const REDACTED = '__SWITCHBOARD_REDACTED__';

/** The parts of a JSON schema node (draft-07, from the TypeBox config schema) the form reads. */
export interface SchemaNode {
  type?: string | string[];
  description?: string;
  default?: Json;
  enum?: Json[];
  minimum?: number;
  maximum?: number;
  properties?: Record<string, SchemaNode>;
  patternProperties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  'x-secret'?: boolean;
}

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A copy of `root` with `value` at `path` (objects on the way are created); `undefined` removes
 * the key, and an object left empty by it is removed too, so clearing a field leaves no `{}`
 * behind that was not in the file.
 */
export function withValue(root: JsonObject, path: KeyPath, value: Json | undefined): JsonObject {
  const [key, ...rest] = path;
  if (key === undefined) return root;
  const copy: JsonObject = { ...root };
  if (rest.length === 0) {
    if (value === undefined) delete copy[key];
    else copy[key] = value;
    return copy;
  }
  const child = isObject(root[key]) ? root[key] : {};
  const next = withValue(child, rest, value);
  if (Object.keys(next).length === 0 && !isObject(root[key])) delete copy[key];
  else copy[key] = next;
  return copy;
}

/** The schema of each entry of a map (`agents`, `models`, `routes`): its pattern's node. */
export function entrySchema(node: SchemaNode): SchemaNode | undefined {
  return node.patternProperties ? Object.values(node.patternProperties)[0] : undefined;
}

/** The node's one type (`anyOf` and lists of types have none: the form edits them as JSON). */
export function typeOf(node: SchemaNode): string | undefined {
  return typeof node.type === 'string' && node.anyOf === undefined ? node.type : undefined;
}

/** An id for the input of `path`, unique on the page. */
export const fieldId = (path: KeyPath) => `config-${path.join('.').replace(/[^A-Za-z0-9_.-]/g, '_')}`;

/** How a default reads next to a field: `default: info`. */
export function defaultText(node: SchemaNode): string | undefined {
  if (node.default === undefined) return undefined;
  const text = typeof node.default === 'string' ? node.default : JSON.stringify(node.default);
  return text === '' || text === '{}' || text === '[]' ? undefined : `default: ${text}`;
}
