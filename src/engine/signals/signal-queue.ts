import { fail, ok, type Result } from '../../base/errors/index.js';
import type { Logger } from '../../base/logging/index.js';
import { DEFAULT_PRIORITY, isPriority, PRIORITIES, priorityRank } from '../../base/messages/index.js';
import type { KeyValueNamespace, Store } from '../../records/store/index.js';
import type { Signal, SignalInput } from './types.js';

export interface SignalQueueOptions {
  store: Store;
  logger: Logger;
  now?: () => Date;
  /** With it, a signal for any other target agent is refused, naming it. */
  agents?: readonly string[];
}

/** How many delivered signals are kept (`delivered` in `list` and `rows`); older ones are forgotten. */
export const MAX_DELIVERED_SIGNALS = 200;

/** A signal a wake turn took, kept after its turn ended (Suzumio's `status = 'delivered'`). */
export interface DeliveredSignal extends Signal {
  deliveredAt: string;
}

/** One signal with its state, synchronously (`rows`): what `store.db`'s `signals` table shows. */
export interface SignalRow {
  signal: Signal;
  status: 'pending' | 'delivered';
  deliveredAt?: string;
}

interface QueueState {
  pending: KeyValueNamespace<Signal>;
  effects: KeyValueNamespace<Signal>;
  delivered: KeyValueNamespace<DeliveredSignal>;
  now: () => Date;
  agents: readonly string[] | undefined;
  logger: Logger;
  /** The pending signals, loaded once from the store; what `take` handed out is not in it. */
  cache: Map<string, Signal> | undefined;
  /** Taken by a wake turn still running (in the store's pending namespace until `acknowledge`). */
  taken: Map<string, Signal>;
  /** The delivered signals kept, oldest first (loaded with `cache`). */
  deliveredList: DeliveredSignal[];
}

/**
 * Pending signals for agents, in the store (they survive restarts). `take` hands out what one
 * wake-up delivers, as Suzumio does: every P0/P1 pending together, else the single most urgent
 * P2/P3 (oldest first); what it took stays stored until `acknowledge`, then is kept as delivered
 * (the newest `MAX_DELIVERED_SIGNALS`). A P0/P1 signal of a kind already pending for the same agent
 * at the same priority (and from the same source) is merged into it (they are delivered together
 * anyway): the count goes up and every distinct payload is kept (`payloads`, oldest first; `payload`
 * is the newest). P2/P3 signals are never merged: each is one wake-up.
 */
export function createSignalQueue(options: SignalQueueOptions) {
  const state: QueueState = {
    pending: options.store.namespace<Signal>('signals-pending'),
    effects: options.store.namespace<Signal>('signals-effects'),
    delivered: options.store.namespace<DeliveredSignal>('signals-delivered'),
    now: options.now ?? (() => new Date()),
    agents: options.agents,
    logger: options.logger,
    cache: undefined,
    taken: new Map(),
    deliveredList: [],
  };
  return {
    /** Validates and stores a signal; returns it, or why it was refused. */
    /** `chargedTo`: who caused it (the gateway's own sends only), see `Signal.chargedTo`. */
    record: (input: SignalInput, source: string, chargedTo?: string) =>
      recordSignal(state, input, source, chargedTo),
    /** Loads the queue (once); the synchronous checks below need it loaded. */
    async load(): Promise<void> {
      await loaded(state);
    },
    /** Synchronous, for scheduler hooks: whether signals wait (for one agent, or any). Needs `load`. */
    hasPending(agentId?: string): boolean {
      return [...(state.cache?.values() ?? [])].some(
        (signal) => agentId === undefined || signal.targetAgent === agentId,
      );
    },
    /** Whether a pending signal carries the message `messageId` (its payload, or a merged one's). */
    async holdsMessage(messageId: string): Promise<boolean> {
      return [...(await loaded(state)).values()].some((signal) => carriesMessage(signal, messageId));
    },
    /** Agents with pending signals. */
    async targets(): Promise<string[]> {
      const targets = [...(await loaded(state)).values()].map((signal) => signal.targetAgent ?? '');
      return [...new Set(targets)].filter(Boolean);
    },
    /**
     * Takes what one wake-up of the agent delivers out of the queue. They stay in the store until
     * `acknowledge` (their turn has ended), so a stop or crash before then delivers them again at
     * the next start; `restore` puts back a batch whose turn did not start.
     */
    take: (agentId: string) => takeBatch(state, agentId),
    /** Taken signals are delivered: the turn they woke has ended. Kept as such (bounded). */
    acknowledge: (signals: readonly Signal[]) => acknowledge(state, signals),
    /** Puts taken signals back in the queue (their turn did not start). */
    restore: (signals: readonly Signal[]) => restore(state, signals),
    /**
     * Synchronously (needs `load`): the pending signals, those a running wake turn took and the
     * delivered ones kept, oldest first. `store.db`'s `signals` table is built from it.
     */
    rows: (): SignalRow[] => signalRows(state),
    /**
     * Every signal with its state, for the Tools page: `pending` (queued), `delivered` (taken by
     * a wake turn, kept after it ended: the newest `MAX_DELIVERED_SIGNALS`), `closed` (a useful
     * effect kept without a target).
     */
    async list(): Promise<(Signal & { status: 'pending' | 'delivered' | 'closed' })[]> {
      const queue = await loaded(state);
      const listed: (Signal & { status: 'pending' | 'delivered' | 'closed' })[] = [];
      for await (const [id, signal] of state.pending.entries())
        listed.push({ ...signal, status: queue.has(id) ? 'pending' : 'delivered' });
      for (const signal of state.deliveredList) listed.push({ ...signal, status: 'delivered' });
      for await (const [, signal] of state.effects.entries()) listed.push({ ...signal, status: 'closed' });
      return listed;
    },
  };
}

export type SignalQueue = ReturnType<typeof createSignalQueue>;

async function restore(state: QueueState, signals: readonly Signal[]): Promise<void> {
  const queue = await loaded(state);
  for (const signal of signals) {
    state.taken.delete(signal.id);
    queue.set(signal.id, signal);
  }
}

function signalRows(state: QueueState): SignalRow[] {
  const rows: SignalRow[] = state.deliveredList.map(({ deliveredAt, ...signal }) => ({
    signal,
    status: 'delivered',
    deliveredAt,
  }));
  for (const signal of state.taken.values()) rows.push({ signal, status: 'delivered' });
  for (const signal of state.cache?.values() ?? []) rows.push({ signal, status: 'pending' });
  return rows;
}

async function loaded(state: QueueState): Promise<Map<string, Signal>> {
  if (!state.cache) {
    const cache = new Map<string, Signal>();
    for await (const [id, signal] of state.pending.entries()) cache.set(id, signal);
    const delivered: DeliveredSignal[] = [];
    for await (const [, signal] of state.delivered.entries()) delivered.push(signal);
    delivered.sort((a, b) => a.deliveredAt.localeCompare(b.deliveredAt));
    state.deliveredList = delivered;
    state.cache = cache;
  }
  return state.cache;
}

/**
 * Why `record` would refuse this input (no kind, an unknown priority, a target agent not in
 * `agents`), synchronously; undefined when it would be taken. `user` is not refused here (posted).
 */
export function signalRefusal(input: SignalInput, agents: readonly string[]): string | undefined {
  const made = toSignal(input, 'check', new Date());
  if (!made.ok) return made.error;
  const target = made.value.targetAgent;
  if (target === undefined || target === 'user' || agents.includes(target)) return undefined;
  return `target agent ${target} is not an agent (agents: ${agents.join(', ') || 'none'})`;
}

/** The signal an input describes, or why it is refused (no kind, an unknown priority). */
function toSignal(input: SignalInput, source: string, now: Date): Result<Signal> {
  if (typeof input?.kind !== 'string' || input.kind.trim() === '') return fail('a signal needs a kind');
  const priority = input.priority ?? DEFAULT_PRIORITY;
  if (!isPriority(priority)) return fail(`signal priority must be one of ${PRIORITIES.join(', ')}`);
  return ok({
    id: `sig_${crypto.randomUUID()}`,
    kind: input.kind,
    priority,
    source,
    createdAt: now.toISOString(),
    merged: 0,
    ...(input.targetAgent ? { targetAgent: input.targetAgent } : {}),
    ...(input.targetChannel ? { targetChannel: input.targetChannel } : {}),
    ...(input.payload === undefined ? {} : { payload: input.payload }),
    ...(input.usefulEffect ? { usefulEffect: input.usefulEffect } : {}),
  });
}

async function recordSignal(
  state: QueueState,
  input: SignalInput,
  source: string,
  chargedTo: string | undefined,
): Promise<Result<Signal>> {
  const made = toSignal(input, source, state.now());
  if (!made.ok) return made;
  const signal: Signal = chargedTo === undefined ? made.value : { ...made.value, chargedTo };
  if (!signal.targetAgent) {
    if (signal.usefulEffect) await state.effects.set(signal.id, signal);
    state.logger.info(
      { signal },
      signal.usefulEffect ? 'useful effect recorded' : 'signal recorded (audit only)',
    );
    return ok(signal);
  }
  if (state.agents && !state.agents.includes(signal.targetAgent)) {
    return fail(
      `target agent ${signal.targetAgent} is not an agent (agents: ${state.agents.join(', ') || 'none'})`,
    );
  }
  const queue = await loaded(state);
  const urgent = signal.priority === 'P0' || signal.priority === 'P1';
  const same = [...queue.values()].find(
    (other) =>
      urgent &&
      other.targetAgent === signal.targetAgent &&
      other.kind === signal.kind &&
      other.priority === signal.priority &&
      other.source === signal.source &&
      other.chargedTo === signal.chargedTo,
  );
  const stored = same ? mergeInto(same, signal) : signal;
  queue.set(stored.id, stored);
  await state.pending.set(stored.id, stored);
  return ok(stored);
}

async function takeBatch(state: QueueState, agentId: string): Promise<Signal[]> {
  const queue = await loaded(state);
  const mine = [...queue.values()]
    .filter((signal) => signal.targetAgent === agentId)
    .sort(
      (a, b) => priorityRank(a.priority) - priorityRank(b.priority) || a.createdAt.localeCompare(b.createdAt),
    );
  // One wake turn has one payer: the urgent ones of the same causer as the most urgent, oldest first.
  const payer = mine[0]?.chargedTo;
  const urgent = mine.filter(
    (signal) => (signal.priority === 'P0' || signal.priority === 'P1') && signal.chargedTo === payer,
  );
  const batch = urgent.length > 0 ? urgent : mine.slice(0, 1);
  for (const signal of batch) {
    queue.delete(signal.id);
    state.taken.set(signal.id, signal);
  }
  return batch;
}

async function acknowledge(state: QueueState, signals: readonly Signal[]): Promise<void> {
  await loaded(state);
  const deliveredAt = state.now().toISOString();
  for (const signal of signals) {
    state.taken.delete(signal.id);
    const delivered: DeliveredSignal = { ...signal, deliveredAt };
    await state.delivered.set(signal.id, delivered);
    state.deliveredList.push(delivered);
    await state.pending.delete(signal.id);
  }
  while (state.deliveredList.length > MAX_DELIVERED_SIGNALS) {
    const oldest = state.deliveredList.shift();
    if (oldest) await state.delivered.delete(oldest.id);
  }
}

function carriesMessage(signal: Signal, messageId: string): boolean {
  const payloads = signal.payloads ?? (signal.payload === undefined ? [] : [signal.payload]);
  return payloads.some(
    (payload) =>
      typeof payload === 'object' && payload !== null && (payload as { id?: unknown }).id === messageId,
  );
}

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
