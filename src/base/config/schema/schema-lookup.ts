import { fail, ok, type Result } from '../../errors/index.js';
import { ConfigSchema } from './schema.js';
import { AGENT_EDITABLE_KEYWORD, SECRET_KEYWORD, TOOL_PROTECTED_KEYWORD } from './schema-helpers.js';

/**
 * `config.schema.lookup`: the schema node at a config path and its direct children, small enough
 * for a model to read one level at a time.
 *
 * Paths: dot-separated keys, `[n]` for an array item (`bindings[0].match.channel`), `["a.b"]` for a
 * key that holds a dot, '' or '.' for the root. Any key walks into a record (`models.default.apiKey`
 * walks `models` → its value schema → `apiKey`). Records and arrays list the keys of their values
 * as children under a `*` placeholder: `models.*.apiKey`, `bindings[*].agent`; `*` and `[*]` are
 * accepted in lookups too. A record or array of scalars has no children; its node says what the
 * values are (`additionalProperties: { type }`, `items: { type, ... }`).
 */

export interface SchemaLookupChild {
  key: string;
  path: string;
  type: string;
  /** Must be in the file: required by the schema and without a default. */
  required: boolean;
  hasChildren: boolean;
}

export interface SchemaLookupResult {
  path: string;
  /** The node's own keywords only, never nested `properties`. */
  schema: Record<string, unknown>;
  children: SchemaLookupChild[];
}

export type SchemaLookup = { ok: true; result: SchemaLookupResult } | { ok: false; error: string };

interface SchemaNode {
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  patternProperties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  required?: string[];
  default?: unknown;
  [keyword: string]: unknown;
}

const SHALLOW_KEYWORDS = [
  'type',
  'title',
  'description',
  'enum',
  'const',
  'default',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minItems',
  'maxItems',
  'uniqueItems',
  'propertyNames',
  SECRET_KEYWORD,
  TOOL_PROTECTED_KEYWORD,
  AGENT_EDITABLE_KEYWORD,
];

export function lookupConfigSchema(path: string, root: unknown = ConfigSchema): SchemaLookup {
  const parsed = parseConfigPath(path);
  if (!parsed.ok) return parsed;
  let node = root as SchemaNode;
  let at = '';
  for (const part of parsed.value) {
    const items = node.type === 'array' ? node.items : undefined;
    const value = recordValue(node);
    if (items && (typeof part === 'number' || part === '*' || /^\d+$/.test(part))) {
      node = items;
      at = `${at}[${part}]`;
    } else if (typeof part === 'string' && node.properties && Object.hasOwn(node.properties, part)) {
      node = node.properties[part] as SchemaNode;
      at = joinKey(at, part);
    } else if (typeof part === 'string' && value) {
      node = value;
      at = joinKey(at, part);
    } else {
      const known = items ? ['[n]'] : Object.keys(node.properties ?? {});
      return {
        ok: false,
        error: `Unknown config path: ${path} (at "${part}"; known keys here: ${known.join(', ') || 'none'})`,
      };
    }
  }
  return { ok: true, result: { path: at, schema: shallow(node), children: childrenOf(node, at) } };
}

/** The value schema of a record (`Type.Record`: `patternProperties`, or `additionalProperties`). */
function recordValue(node: SchemaNode): SchemaNode | undefined {
  const [pattern] = Object.values(node.patternProperties ?? {});
  if (pattern) return pattern;
  return typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined;
}

function childrenOf(node: SchemaNode, at: string): SchemaLookupChild[] {
  if (node.properties) {
    return Object.entries(node.properties).map(([key, child]) => ({
      key,
      path: joinKey(at, key),
      type: typeOf(child),
      required: (node.required ?? []).includes(key) && child.default === undefined,
      hasChildren: childrenOf(child, '').length > 0,
    }));
  }
  const value = recordValue(node);
  if (value?.properties) return childrenOf(value, joinKey(at, '*'));
  if (node.type === 'array' && node.items?.properties) return childrenOf(node.items, `${at}[*]`);
  return [];
}

function shallow(node: SchemaNode): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const keyword of SHALLOW_KEYWORDS) if (node[keyword] !== undefined) picked[keyword] = node[keyword];
  const value = recordValue(node);
  if (value) picked.additionalProperties = { type: typeOf(value) };
  else if (node.additionalProperties !== undefined) picked.additionalProperties = node.additionalProperties;
  if (node.items) {
    const { description: _description, ...items } = shallow(node.items);
    picked.items = items;
  }
  return picked;
}

function typeOf(node: SchemaNode): string {
  if (Array.isArray(node.type)) return node.type.join('|');
  if (node.type) return node.type;
  const variants = (node.anyOf ?? node.oneOf) as SchemaNode[] | undefined;
  return variants ? variants.map(typeOf).join('|') : 'any';
}

/**
 * Splits a config path into keys (strings) and array indices (numbers). `[*]` and `.*` both give
 * the key '*'. Errors name the path and what is wrong with it.
 */
export function parseConfigPath(path: string): Result<(string | number)[]> {
  if (path === '' || path === '.') return ok([]);
  const parts: (string | number)[] = [];
  const refuse = (reason: string) => fail(`Invalid config path: ${path} (${reason})`);
  let index = 0;
  let expectKey = true;
  while (index < path.length) {
    const char = path[index];
    if (char === '[') {
      const close = path.indexOf(']', index);
      const inner = close === -1 ? '' : path.slice(index + 1, close);
      if (/^\d+$/.test(inner)) parts.push(Number(inner));
      else if (inner === '*') parts.push('*');
      else if (/^"(?:[^"\\]|\\.)*"$/.test(inner)) parts.push(JSON.parse(inner) as string);
      else return refuse(`expected [n], [*] or ["key"] at character ${index + 1}`);
      index = close + 1;
      expectKey = false;
    } else if (char === '.' && !expectKey) {
      index += 1;
      expectKey = true;
    } else if (expectKey && char !== '.') {
      const match = /^[^.[]+/.exec(path.slice(index));
      const key = match?.[0] ?? '';
      parts.push(key);
      index += key.length;
      expectKey = false;
    } else {
      return refuse(`unexpected "${char}" at character ${index + 1}`);
    }
  }
  if (expectKey) return refuse('it ends with "."');
  return ok(parts);
}

/** The inverse of parseConfigPath: `agents.main.tools`, `bindings[0].agent`, `models["gpt-4.1"]`. */
export function formatConfigPath(parts: readonly (string | number)[]): string {
  let at = '';
  for (const part of parts) at = typeof part === 'number' ? `${at}[${part}]` : joinKey(at, part);
  return at;
}

function joinKey(at: string, key: string): string {
  if (!/^[A-Za-z0-9_$*-]+$/.test(key)) return `${at}[${JSON.stringify(key)}]`;
  return at === '' ? key : `${at}.${key}`;
}
