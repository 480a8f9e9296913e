import type { Logger } from '../logging/index.js';
import type { Store } from '../store/index.js';
import { SIGNAL_PRIORITIES, type Signal, type SignalInput } from './types.js';

const RANK: Record<string, number> = { P0: 0, P1: 1, P2: 2, P3: 3 };

/**
 * Pending signals for agents, in the store (they survive restarts). A signal of a kind already
 * pending for the same agent at the same priority (and from the same source) is merged into it, so a
 * busy agent is not woken once per repeat: the count goes up and every distinct payload is kept
 * (`payloads`, oldest first; `payload` is the newest), so no message body is lost. Signals of
 * different priorities are never merged: a merge never changes a priority. `take` hands out what
 * one wake-up delivers: every P0/P1 pending together, else the single most urgent P2/P3 (oldest
 * first); what it took stays stored until `acknowledge`.
 * With `agents`, a signal for any other target is refused, naming it.
 */
export function createSignalQueue(options: {
  store: Store;
  logger: Logger;
  now?: () => Date;
  agents?: readonly string[];
}) {
  const pending = options.store.namespace<Signal>('signals-pending');
  const effects = options.store.namespace<Signal>('signals-effects');
  const now = options.now ?? (() => new Date());
  let cache: Map<string, Signal> | undefined;

  async function all(): Promise<Map<string, Signal>> {
    if (!cache) {
      cache = new Map();
      for await (const [id, signal] of pending.entries()) cache.set(id, signal);
    }
    return cache;
  }

  function unknownTarget(target: string): string | undefined {
    if (!options.agents || options.agents.includes(target)) return undefined;
    return `target agent ${target} is not an agent (agents: ${options.agents.join(', ') || 'none'})`;
  }

  return {
    /** Validates and stores a signal; returns it, or a reason it was refused. */
    async record(
      input: SignalInput,
      source: string,
    ): Promise<{ ok: true; signal: Signal } | { ok: false; reason: string }> {
      if (typeof input?.kind !== 'string' || input.kind.trim() === '')
        return { ok: false, reason: 'a signal needs a kind' };
      const priority = input.priority ?? 'P2';
      if (!SIGNAL_PRIORITIES.includes(priority)) {
        return { ok: false, reason: `signal priority must be one of ${SIGNAL_PRIORITIES.join(', ')}` };
      }
      const signal: Signal = {
        id: `sig_${crypto.randomUUID()}`,
        kind: input.kind,
        priority,
        source,
        createdAt: now().toISOString(),
        merged: 0,
        ...(input.targetAgent ? { targetAgent: input.targetAgent } : {}),
        ...(input.targetChannel ? { targetChannel: input.targetChannel } : {}),
        ...(input.payload === undefined ? {} : { payload: input.payload }),
        ...(input.usefulEffect ? { usefulEffect: input.usefulEffect } : {}),
      };
      if (!signal.targetAgent) {
        if (signal.usefulEffect) await effects.set(signal.id, signal);
        options.logger.info(
          { signal },
          signal.usefulEffect ? 'useful effect recorded' : 'signal recorded (audit only)',
        );
        return { ok: true, signal };
      }
      const refused = unknownTarget(signal.targetAgent);
      if (refused) return { ok: false, reason: refused };
      const queue = await all();
      const same = [...queue.values()].find(
        (other) =>
          other.targetAgent === signal.targetAgent &&
          other.kind === signal.kind &&
          other.priority === signal.priority &&
          other.source === signal.source,
      );
      if (same) {
        const merged = mergeInto(same, signal);
        queue.set(same.id, merged);
        await pending.set(same.id, merged);
        return { ok: true, signal: merged };
      }
      queue.set(signal.id, signal);
      await pending.set(signal.id, signal);
      return { ok: true, signal };
    },

    /** Loads the queue (once); the synchronous checks below need it loaded. */
    async load(): Promise<void> {
      await all();
    },

    /** Synchronous, for scheduler hooks: whether signals wait (for one agent, or any). Needs `load`. */
    hasPending(agentId?: string): boolean {
      return [...(cache?.values() ?? [])].some(
        (signal) => agentId === undefined || signal.targetAgent === agentId,
      );
    },

    /** Agents with pending signals. */
    async targets(): Promise<string[]> {
      return [...new Set([...(await all()).values()].map((signal) => signal.targetAgent ?? ''))].filter(
        Boolean,
      );
    },

    /**
     * Takes what one wake-up of the agent delivers out of the queue. They stay in the store until
     * `acknowledge` (their turn has ended), so a stop or crash before then delivers them again at
     * the next start; `restore` puts back a batch whose turn did not start.
     */
    async take(agentId: string): Promise<Signal[]> {
      const queue = await all();
      const mine = [...queue.values()]
        .filter((signal) => signal.targetAgent === agentId)
        .sort(
          (a, b) =>
            (RANK[a.priority] ?? 3) - (RANK[b.priority] ?? 3) || a.createdAt.localeCompare(b.createdAt),
        );
      const urgent = mine.filter((signal) => signal.priority === 'P0' || signal.priority === 'P1');
      const batch = urgent.length > 0 ? urgent : mine.slice(0, 1);
      for (const signal of batch) queue.delete(signal.id);
      return batch;
    },

    /** Forgets taken signals: the turn they woke has ended. */
    async acknowledge(signals: readonly Signal[]): Promise<void> {
      for (const signal of signals) await pending.delete(signal.id);
    },

    /** Puts taken signals back in the queue (their turn did not start). */
    async restore(signals: readonly Signal[]): Promise<void> {
      const queue = await all();
      for (const signal of signals) queue.set(signal.id, signal);
    },
  };
}

export type SignalQueue = ReturnType<typeof createSignalQueue>;

/** `signal` merged into the pending `same` (same target, kind, priority and source). */
function mergeInto(same: Signal, signal: Signal): Signal {
  const earlier = same.payloads ?? (same.payload === undefined ? [] : [same.payload]);
  const repeated =
    signal.payload === undefined ||
    (earlier.length > 0 && JSON.stringify(earlier.at(-1)) === JSON.stringify(signal.payload));
  const payloads = repeated ? earlier : [...earlier, signal.payload];
  return {
    ...same,
    merged: same.merged + 1,
    ...(payloads.length === 0 ? {} : { payload: payloads.at(-1), payloads }),
  };
}
