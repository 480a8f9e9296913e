/**
 * The one shape of an expected failure (a refused edit, an unknown session, a bad argument): a
 * value, or an error that says what is wrong. Bugs and misconfiguration throw coded errors instead
 * (`coded-errors.ts`). The model-facing JSON of tools keeps its own shape (`{ ok: false, reason }`).
 */
export type Result<T, E = string> = { ok: true; value: T } | { ok: false; error: E };

export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

export function fail<E>(error: E): { ok: false; error: E } {
  return { ok: false, error };
}
