import { createKeyQueue, type Store } from '../../records/store/index.js';
import type { UsageCall, UsageCell, UsageDay, UsageQuery, UsageReport, UsageTotals } from './types.js';
import { lastUsageDays, usageDay } from './usage-days.js';
import { addTotals, summarizeDays } from './usage-report.js';

/** Who a call counts to: a chat sender is a user; everything the runtime starts counts as `runtime`. */
export const RUNTIME_USER = 'runtime';
const CHAT_SENDER = /^(webchat|slack|discord):/;

export function usageUser(senderId: string): string {
  return CHAT_SENDER.test(senderId) ? senderId : RUNTIME_USER;
}

export interface UsageLedger {
  readonly timeZone: string;
  /** The clock usage days are read from. */
  now(): Date;
  /** Adds one model call to its day; resolves once the write is durable. */
  record(call: UsageCall): Promise<void>;
  /** The stored day `day` (`YYYY-MM-DD`), undefined before its first call. */
  day(day: string): Promise<UsageDay | undefined>;
  report(query: UsageQuery): Promise<UsageReport>;
}

/**
 * The usage ledger: one value per usage day in the `usage-days` namespace, holding a cell per
 * agent, channel, user and model, so `/usage` and the budgets read a day (or seven) whatever the
 * number of runs. Each call adds to its day in a read-modify-write section of a key queue: the
 * gateway is one process, so nothing else writes a day (several processes on one Redis store
 * would each need their own days).
 */
export function createUsageLedger(options: {
  store: Store;
  timeZone: string;
  now?: () => Date;
  /**
   * The person a user (a sender id) is (`people`, linked identities): a report counts a person's
   * identities as one user, `person:<id>`, and a user's own usage is all of their person's.
   */
  personOf?: (userId: string) => string | undefined;
}): UsageLedger {
  const days = options.store.namespace<UsageDay>('usage-days');
  const queue = createKeyQueue();
  const { timeZone } = options;
  const now = options.now ?? (() => new Date());
  return {
    timeZone,
    now,
    record(call) {
      const day = usageDay(now(), timeZone);
      return queue.run(day, async () => {
        const stored = await days.get(day);
        await days.set(day, { day, timeZone, cells: addCall(stored?.cells ?? [], call) });
      });
    },
    day: (day) => days.get(day),
    async report(query) {
      const keys = query.period === 'today' ? [usageDay(now(), timeZone)] : lastUsageDays(now(), timeZone, 7);
      const stored = (await days.getMany(keys)).filter((day) => day !== undefined);
      return {
        period: query.period,
        by: query.by,
        timeZone,
        from: keys[0] ?? '',
        to: keys.at(-1) ?? '',
        ...summarizeDays(stored, query, options.personOf),
        ...(query.userId === undefined ? {} : { userId: query.userId }),
      };
    },
  };
}

/** The cells with `call` added to its own (a new cell when it is the first of its kind that day). */
function addCall(cells: readonly UsageCell[], call: UsageCall): UsageCell[] {
  const userId = usageUser(call.senderId);
  const { agentId, channel, model } = call;
  const same = (cell: UsageCell) =>
    cell.agentId === agentId && cell.channel === channel && cell.userId === userId && cell.model === model;
  const added: UsageTotals = {
    inputTokens: call.inputTokens,
    outputTokens: call.outputTokens,
    calls: 1,
    ...(call.estimated && { estimatedCalls: 1 }),
  };
  const totals = call.cost === undefined ? added : { ...added, cost: call.cost };
  const found = cells.find(same);
  if (!found) return [...cells, { agentId, channel, userId, model, ...totals }];
  return cells.map((cell) => (cell === found ? { ...cell, ...addTotals(cell, totals) } : cell));
}
