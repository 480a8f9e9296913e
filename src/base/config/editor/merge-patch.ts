import { isDeepStrictEqual } from 'node:util';

/**
 * JSON merge patch (RFC 7396) with one extension for config arrays.
 *
 * RFC 7396: a patch object merges into the target key by key, recursively; a `null` value deletes
 * the key; any other value (string, number, boolean, array) replaces the target's value whole.
 *
 * Extension, id-merge: when the target array holds at least one object with an `id` (string or
 * number) — `tools.toolpacks` mixes names and `{ path, id }` objects — a patch array merges into it
 * instead of replacing it, so that an edit of one item cannot wipe the others:
 * - a patch item with an id the target has merges into that item with these same rules (so `null`
 *   deletes a key of the item); one with a new id is appended;
 * - every other patch item (a name, an object without an id) is appended unless the target already
 *   holds an equal item; the target's own items are all kept, in their order.
 * So `[]` changes nothing there, and no item can be removed by a patch: the `replace` option (the
 * gateway tool's `replacePaths`) makes the patch replace the array whole at the paths it names.
 * An array whose target has no id items is replaced, as RFC 7396 says.
 *
 * The RFC 7396 libraries on npm (json-merge-patch, ...) implement the RFC only, without the
 * id-merge rule, hence this function. It is pure: the inputs are not modified and the result shares
 * no objects with them.
 */
export function applyMergePatch(target: unknown, patch: unknown, options: MergePatchOptions = {}): unknown {
  return merge(target, patch, [], options.replace ?? (() => false));
}

export interface MergePatchOptions {
  /** Paths (keys and array indexes from the root) where an array patch replaces the target array whole. */
  replace?: (at: readonly (string | number)[]) => boolean;
}

type Replace = NonNullable<MergePatchOptions['replace']>;

function merge(target: unknown, patch: unknown, at: (string | number)[], replace: Replace): unknown {
  if (isPlainObject(patch)) {
    const result: Record<string, unknown> = isPlainObject(target) ? copyObject(target) : {};
    for (const [key, value] of Object.entries(patch)) {
      if (value === null) delete result[key];
      else setOwn(result, key, merge(result[key], value, [...at, key], replace));
    }
    return result;
  }
  if (Array.isArray(patch) && Array.isArray(target) && target.some(hasId) && !replace(at)) {
    return mergeById(target, patch, at, replace);
  }
  return withoutNulls(patch);
}

type IdItem = Record<string, unknown> & { id: string | number };

function hasId(item: unknown): item is IdItem {
  return isPlainObject(item) && (typeof item.id === 'string' || typeof item.id === 'number');
}

function mergeById(
  target: unknown[],
  patch: unknown[],
  at: (string | number)[],
  replace: Replace,
): unknown[] {
  const result: unknown[] = target.map((item) => structuredClone(item));
  const indexById = new Map<string | number, number>();
  target.forEach((item, index) => {
    if (hasId(item)) indexById.set(item.id, index);
  });
  for (const item of patch) {
    const index = hasId(item) ? indexById.get(item.id) : undefined;
    if (index !== undefined) {
      result[index] = merge(result[index], item, [...at, index], replace);
      continue;
    }
    const added = withoutNulls(item);
    if (hasId(item)) indexById.set(item.id, result.length);
    else if (result.some((existing) => isDeepStrictEqual(existing, added))) continue;
    result.push(added);
  }
  return result;
}

/**
 * A patch value that is not merged into anything is applied as if onto nothing: objects lose their
 * `null` members (RFC 7396 applies MergePatch({}, value)); arrays and scalars are copied as they are.
 */
function withoutNulls(value: unknown): unknown {
  if (isPlainObject(value)) return applyMergePatch({}, value);
  return structuredClone(value);
}

function copyObject(source: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) setOwn(copy, key, structuredClone(value));
  return copy;
}

/** Sets an own property even for `__proto__`, so that such a key reaches validation as a key. */
function setOwn(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
