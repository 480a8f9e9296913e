import type { PageCursor } from '../store/index.js';

/**
 * The cursor of a page of sessions, as callers see it: an opaque string (base64url of
 * `[order, key]`), so that the HTTP API can hand it out and take it back unchanged.
 */
export function encodeSessionCursor(cursor: PageCursor): string {
  return Buffer.from(JSON.stringify([cursor.order, cursor.key])).toString('base64url');
}

/** The position a cursor names; undefined for any string `encodeSessionCursor` did not make. */
export function decodeSessionCursor(text: string): PageCursor | undefined {
  if (text === '' || text.length > 4096 || !/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) return undefined;
  const [order, key] = parsed as unknown[];
  if (typeof order !== 'number' || !Number.isFinite(order) || typeof key !== 'string') return undefined;
  const cursor = { order, key };
  // Only the one spelling of a cursor is one (base64url has several for some byte strings).
  return encodeSessionCursor(cursor) === text ? cursor : undefined;
}

/** Whether `text` is a cursor of a page of sessions (the HTTP API checks before listing). */
export const isSessionCursor = (text: string): boolean => decodeSessionCursor(text) !== undefined;
