import { SwitchboardError } from '../../base/errors/index.js';
import type { Logger } from '../../base/logging/index.js';
import type { ChannelMemory } from './memory.js';

/**
 * Events a channel acknowledged to its platform before the router stored their message (a Slack
 * message whose files still download): kept in `ChannelMemory` under one key until the router
 * has the message, so a process that dies in between leaves them to the next start.
 */
export interface HeldEvents<T> {
  /** Keeps `value` under `id`; rejects when the memory could not be written or `limit` are held. */
  add(id: string, value: T): Promise<void>;
  /** Forgets `id` (the router stored its message); a failed write is logged, never thrown. */
  remove(id: string): Promise<void>;
  /** Every held event, oldest first. */
  list(): Promise<Array<{ id: string; value: T }>>;
}

/**
 * The held events of one channel, as one JSON object under `key` (written whole on every change,
 * one change at a time, so two events never overwrite each other's entry).
 */
export function createHeldEvents<T>(options: {
  memory: ChannelMemory;
  key: string;
  ttlMs: number;
  limit: number;
  logger: Logger;
}): HeldEvents<T> {
  const { memory, key, ttlMs, limit, logger } = options;
  /** What the memory holds, once read in this process. */
  let entries: Map<string, T> | undefined;
  let chain: Promise<unknown> = Promise.resolve();
  const serially = <R>(step: () => Promise<R>): Promise<R> => {
    const next = chain.then(step);
    chain = next.catch(() => undefined);
    return next;
  };
  const load = async (): Promise<Map<string, T>> => {
    if (entries !== undefined) return entries;
    const raw = await memory.get(key);
    entries = new Map(raw === undefined ? [] : Object.entries(JSON.parse(raw) as Record<string, T>));
    return entries;
  };
  const save = (held: Map<string, T>) => memory.set(key, JSON.stringify(Object.fromEntries(held)), ttlMs);
  return {
    add: (id, value) =>
      serially(async () => {
        const held = await load();
        if (!held.has(id) && held.size >= limit)
          throw new SwitchboardError(
            'CHANNEL_EVENT_NOT_STORED',
            `${limit} events already wait for their message to be stored (channel memory key ${key}); the platform will deliver this one again`,
          );
        const next = new Map(held).set(id, value);
        await save(next);
        entries = next;
      }),
    remove: (id) =>
      serially(async () => {
        const held = await load();
        if (!held.has(id)) return;
        const next = new Map(held);
        next.delete(id);
        await save(next);
        entries = next;
      }).catch((error: unknown) => {
        logger.warn(
          { err: error, key, id },
          'held event could not be forgotten; the next start hands it on again',
        );
      }),
    list: () => serially(async () => [...(await load())].map(([id, value]) => ({ id, value }))),
  };
}
