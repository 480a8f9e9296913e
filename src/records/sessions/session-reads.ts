import { SwitchboardError } from '../../base/errors/index.js';
import { MAX_PAGE_LIMIT, type PageCursor, type PageEntry } from '../store/index.js';
import { decodeSessionCursor, encodeSessionCursor } from './session-cursor.js';
import { type SessionStoreState, upToDate } from './session-records.js';
import type {
  SessionListOptions,
  SessionPage,
  SessionRecord,
  TranscriptEntry,
  TranscriptReadOptions,
} from './types.js';

/** How many records a filtered list reads at a time. */
const SCAN_PAGE = 200;

/** A count a caller passed: a bug when it is not a whole number in range. */
function checkedCount(what: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new SwitchboardError('GATEWAY_STATE', `session store: ${what} ${value} (use ${min}–${max})`);
  return value;
}

/**
 * The entries of one session id, oldest first: the last `last` (all when absent) below `before`.
 * Reads pages of the transcript list from the newest down, so it reads only what it returns.
 */
export async function readTranscript(
  state: SessionStoreState,
  sessionId: string,
  options: TranscriptReadOptions,
): Promise<TranscriptEntry[]> {
  const want =
    options.last === undefined
      ? Number.POSITIVE_INFINITY
      : checkedCount('transcript last', options.last, 0, Number.MAX_SAFE_INTEGER);
  const found: TranscriptEntry[] = [];
  // A cursor at `before` with the lowest key: the page starts at the first seq below it.
  let after: PageCursor | undefined =
    options.before === undefined
      ? undefined
      : { order: checkedCount('transcript before', options.before, 0, Number.MAX_SAFE_INTEGER), key: '' };
  while (found.length < want) {
    const limit = Math.min(MAX_PAGE_LIMIT, want - found.length);
    const page = await state.entries.page({ group: sessionId, limit, ...(after ? { after } : {}) });
    for (const entry of page.entries) found.push(entry.value);
    if (!page.next) break;
    after = page.next;
  }
  return found.reverse();
}

/**
 * A page of sessions, most recently active first. With `where`, pages of the list are read until
 * `limit` sessions match or the list ends; the cursor then points after the last match.
 */
export async function listSessions(
  state: SessionStoreState,
  options: SessionListOptions,
): Promise<SessionPage> {
  const limit = checkedCount('list limit', options.limit, 1, MAX_PAGE_LIMIT);
  const after = options.cursor === undefined ? undefined : decodeSessionCursor(options.cursor);
  if (options.cursor !== undefined && !after)
    throw new SwitchboardError('GATEWAY_STATE', `session store: list with a bad cursor "${options.cursor}"`);
  const { chosen, next } = await choose(state, limit, after, options.where);
  const sessions = await Promise.all(chosen.map((entry) => current(state, entry)));
  return { sessions, ...(next ? { next: encodeSessionCursor(next) } : {}) };
}

/** The first `limit` entries after `after` that `where` accepts, and where the next page starts. */
async function choose(
  state: SessionStoreState,
  limit: number,
  start: PageCursor | undefined,
  where: SessionListOptions['where'],
): Promise<{ chosen: PageEntry<SessionRecord>[]; next?: PageCursor }> {
  const chosen: PageEntry<SessionRecord>[] = [];
  const size = where ? Math.max(limit, SCAN_PAGE) : limit;
  let after = start;
  for (;;) {
    const page = await state.records.page({ limit: size, ...(after ? { after } : {}) });
    for (const [index, entry] of page.entries.entries()) {
      if (where && !where(entry.value)) continue;
      chosen.push(entry);
      if (chosen.length < limit) continue;
      const more = index < page.entries.length - 1 || page.next !== undefined;
      return more ? { chosen, next: { order: entry.order, key: entry.key } } : { chosen };
    }
    if (!page.next) return { chosen };
    after = page.next;
  }
}

/** A listed record as it is now: from the cache, else brought up to date from its transcript. */
function current(state: SessionStoreState, entry: PageEntry<SessionRecord>): Promise<SessionRecord> {
  const cached = state.cache.get(entry.key);
  return cached ? Promise.resolve(cached) : upToDate(state, entry.value);
}
