/**
 * JSON merge patch (RFC 7396) with one extension for config arrays.
 *
 * RFC 7396: a patch object merges into the target key by key, recursively; a `null` value deletes
 * the key; any other value (string, number, boolean, array) replaces the target's value whole.
 *
 * Extension, id-merge: when the patch array is non-empty and every item of both the target array
 * and the patch array is an object with an `id` (string or number), the arrays merge by id: a patch
 * item whose id is in the target merges into that item with these same rules (so `null` deletes a
 * key of the item), and an item with a new id is appended. The order of the target is kept. Any
 * other array, including `[]`, replaces the target's array. An item cannot be deleted by id: to
 * remove one, patch the whole array without it, or use `config.apply`.
 *
 * The RFC 7396 libraries on npm (json-merge-patch, ...) implement the RFC only, without the
 * id-merge rule, hence this function. It is pure: the inputs are not modified and the result shares
 * no objects with them.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (isPlainObject(patch)) {
    const result: Record<string, unknown> = isPlainObject(target) ? copyObject(target) : {};
    for (const [key, value] of Object.entries(patch)) {
      if (value === null) delete result[key];
      else setOwn(result, key, applyMergePatch(result[key], value));
    }
    return result;
  }
  if (Array.isArray(patch) && Array.isArray(target) && mergesById(target, patch)) {
    return mergeById(target as IdItem[], patch as IdItem[]);
  }
  return withoutNulls(patch);
}

type IdItem = Record<string, unknown> & { id: string | number };

function mergesById(target: unknown[], patch: unknown[]): boolean {
  return patch.length > 0 && target.every(hasId) && patch.every(hasId);
}

function hasId(item: unknown): item is IdItem {
  return isPlainObject(item) && (typeof item.id === 'string' || typeof item.id === 'number');
}

function mergeById(target: IdItem[], patch: IdItem[]): unknown[] {
  const result: unknown[] = target.map((item) => structuredClone(item));
  const indexById = new Map<string | number, number>(target.map((item, index) => [item.id, index]));
  for (const item of patch) {
    const index = indexById.get(item.id);
    if (index === undefined) {
      indexById.set(item.id, result.length);
      result.push(applyMergePatch({}, item));
    } else {
      result[index] = applyMergePatch(result[index], item);
    }
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
