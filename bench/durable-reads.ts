import type { SessionStore } from '../src/records/sessions/index.js';
import { timeReads } from './durable-drive.js';
import { openSessions, type Seeded } from './durable-seed.js';

/**
 * In-process reads of the durable bench on a store opened fresh on seeded state: a page of 100
 * sessions, the last 200 transcript entries and the whole transcript of the long session. Each
 * read runs READS times (fewer once one call passes 2 s); the figure is their median, the first
 * call is reported beside it (cold: nothing cached yet).
 */

const READS = 5;
export const PAGE = 100;
export const LAST = 200;

export interface ReadFigures {
  /** ms, median of the calls. */
  median: number;
  first: number;
  /** How many items the call returned (a full list where no page API exists yet). */
  returned: number;
}

export interface InProcessReads {
  list: ReadFigures;
  last: ReadFigures;
  full: ReadFigures;
}

/** Items in whatever a list call answers: an array, or `{ sessions | entries, next }`. */
export function countItems(result: unknown): number {
  if (Array.isArray(result)) return result.length;
  if (result && typeof result === 'object') {
    const { sessions, entries } = result as { sessions?: unknown; entries?: unknown };
    if (Array.isArray(sessions)) return sessions.length;
    if (Array.isArray(entries)) return entries.length;
  }
  return Number.NaN;
}

/** `list({ limit })` where the session store pages; the store of today takes no options (full list). */
const listPage = (sessions: SessionStore) =>
  (sessions.list as (options?: { limit: number }) => Promise<unknown>)({ limit: PAGE });

async function figure(read: () => Promise<unknown>): Promise<ReadFigures> {
  const timed = await timeReads(read, READS);
  return { median: timed.median, first: timed.first, returned: countItems(timed.result) };
}

export async function readInProcess(seeded: Seeded): Promise<InProcessReads> {
  const { store, sessions } = await openSessions(seeded.stateDir);
  try {
    return {
      list: await figure(() => listPage(sessions)),
      last: await figure(() => sessions.transcript(seeded.longKey, { last: LAST })),
      full: await figure(() => sessions.transcript(seeded.longKey)),
    };
  } finally {
    await store.close();
  }
}
