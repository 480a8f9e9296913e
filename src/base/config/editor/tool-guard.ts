import { isDeepStrictEqual } from 'node:util';
import { ConfigSchema } from '../schema/schema.js';
import { type SchemaNode, SECRET_KEYWORD, TOOL_PROTECTED_KEYWORD } from '../schema/schema-helpers.js';
import { formatConfigPath } from '../schema/schema-lookup.js';
import { collectDifferences, valueAt } from './edit-text.js';
import { isPlainObject } from './merge-patch.js';

/**
 * What the model-facing `gateway` tool may not change, found in the schema rather than listed by
 * hand, so that a new secret or URL field is protected the day it is added:
 * - `value`: the value at the path may not change (added, changed or removed): every `x-secret`
 *   field, every `format: uri` field (a URL decides where a secret or the conversation is sent),
 *   and every node marked `x-tool-protected: true` (owners, http, commands, …);
 * - `presence`: the key may not be added or removed (`x-tool-protected: "presence"`: a channel);
 * - `added-code`: an array that may not gain a `{ path, id }` entry or the `shell` name
 *   (`x-tool-protected: "added-code"`: `tools.toolpacks`, where those run code on this machine).
 * `*` in a path stands for any key or array index.
 */
export type ProtectionKind = 'value' | 'presence' | 'added-code';

export interface ProtectedPath {
  path: readonly string[];
  kind: ProtectionKind;
}

/** The toolpack names that run code beyond reading and fetching: adding one is `added-code`. */
const CODE_TOOLPACK_NAMES = new Set(['shell']);

export function findToolProtectedPaths(schema: unknown = ConfigSchema): ProtectedPath[] {
  const found: ProtectedPath[] = [];
  const walk = (node: SchemaNode, at: string[]) => {
    const mark = node[TOOL_PROTECTED_KEYWORD];
    if (mark === true || node[SECRET_KEYWORD] === true || node.format === 'uri') {
      found.push({ path: at, kind: 'value' });
      return; // everything below is covered
    }
    if (mark === 'presence' || mark === 'added-code') found.push({ path: at, kind: mark });
    for (const [key, child] of Object.entries(node.properties ?? {})) walk(child, [...at, key]);
    for (const child of Object.values(node.patternProperties ?? {})) walk(child, [...at, '*']);
    if (typeof node.additionalProperties === 'object') walk(node.additionalProperties, [...at, '*']);
    if (node.items) walk(node.items, [...at, '*']);
    for (const child of node.anyOf ?? []) walk(child, at);
  };
  walk(schema as SchemaNode, []);
  return found;
}

export type Parts = (string | number)[];

/**
 * The first protected path the edit from `previous` to `next` (both the file's own objects) would
 * change, as a dot path: the deepest changed key under a protected object (`http.port`), the
 * protected path itself otherwise (`owners`, `channels.slack`), the new item of an `added-code`
 * array (`tools.toolpacks[3]`).
 */
export function refusedProtectedPath(
  previous: Record<string, unknown>,
  next: Record<string, unknown>,
  protectedPaths: readonly ProtectedPath[],
): string | undefined {
  for (const { path, kind } of protectedPaths) {
    for (const at of expand(path, [previous, next])) {
      const before = valueAt(previous, at);
      const after = valueAt(next, at);
      if (kind === 'value' && !isDeepStrictEqual(before, after)) return deepestChange(at, before, after);
      if (kind === 'presence' && (before === undefined) !== (after === undefined))
        return formatConfigPath(at);
      if (kind === 'added-code' && Array.isArray(after)) {
        const old = Array.isArray(before) ? before : [];
        const index = after.findIndex(
          (item) =>
            (isPlainObject(item) || CODE_TOOLPACK_NAMES.has(item as string)) &&
            !old.some((known) => isDeepStrictEqual(known, item)),
        );
        if (index !== -1) return formatConfigPath([...at, index]);
      }
    }
  }
  return undefined;
}

/** Every concrete path a pattern names in any of the roots (`*` → each key or index there). */
function expand(pattern: readonly string[], roots: unknown[]): Parts[] {
  let paths: Parts[] = [[]];
  for (const part of pattern) {
    const nextPaths = new Map<string, Parts>();
    for (const at of paths) {
      for (const root of roots) {
        const node = valueAt(root, at);
        if (node === null || typeof node !== 'object') continue;
        const keys: Parts =
          part !== '*' ? [part] : Array.isArray(node) ? node.map((_, index) => index) : Object.keys(node);
        for (const key of keys) nextPaths.set(JSON.stringify([...at, key]), [...at, key]);
      }
    }
    paths = [...nextPaths.values()];
  }
  return paths;
}

function deepestChange(at: Parts, before: unknown, after: unknown): string {
  if (!isPlainObject(before) || !isPlainObject(after)) return formatConfigPath(at);
  const differences: Parameters<typeof collectDifferences>[3] = [];
  collectDifferences(before, after, [], differences);
  return formatConfigPath([...at, ...(differences[0]?.path ?? [])]);
}

const REFERENCE = /(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)\}/;

/**
 * The first string of `next` that names an environment variable (`${NAME}`, not the `$${NAME}`
 * escape) where `previous` did not hold that same string: the model could otherwise copy any
 * secret of the gateway's environment into a prompt or a name and read it back.
 */
export function addedEnvReference(
  previous: Record<string, unknown>,
  next: Record<string, unknown>,
): { path: string; reference: string } | undefined {
  const walk = (node: unknown, at: Parts): { path: string; reference: string } | undefined => {
    if (typeof node === 'string') {
      const match = REFERENCE.exec(node);
      if (match && valueAt(previous, at) !== node) return { path: formatConfigPath(at), reference: match[0] };
      return undefined;
    }
    if (node === null || typeof node !== 'object') return undefined;
    for (const [key, value] of Object.entries(node)) {
      const found = walk(value, [...at, Array.isArray(node) ? Number(key) : key]);
      if (found) return found;
    }
    return undefined;
  };
  return walk(next, []);
}

/**
 * What the edit removes, as paths: keys that are gone (`models.local`), an object or array
 * replaced by something else, and array items with no equal item left (`agents.main.tools[0]`);
 * an item with an `id` counts as kept when an item with that id is still there (its own removed
 * keys are then named under it).
 */
export function findRemovals(previous: unknown, next: unknown, at: Parts = []): Parts[] {
  if (isPlainObject(previous)) {
    if (!isPlainObject(next)) return Object.keys(previous).length > 0 ? [at] : [];
    return Object.keys(previous).flatMap((key) =>
      Object.hasOwn(next, key) ? findRemovals(previous[key], next[key], [...at, key]) : [[...at, key]],
    );
  }
  if (Array.isArray(previous)) {
    if (!Array.isArray(next)) return previous.length > 0 ? [at] : [];
    return previous.flatMap((item, index) => {
      const id = isPlainObject(item) ? item.id : undefined;
      const kept =
        id === undefined ? undefined : next.find((other) => isPlainObject(other) && other.id === id);
      if (kept !== undefined) return findRemovals(item, kept, [...at, index]);
      return next.some((other) => isDeepStrictEqual(other, item)) ? [] : [[...at, index]];
    });
  }
  return [];
}
