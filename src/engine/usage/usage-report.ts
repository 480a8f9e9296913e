import type { UsageCell, UsageDay, UsageGrouping, UsageQuery, UsageRow, UsageTotals } from './types.js';

/** `a` plus `b`; a cost only when either has one, estimated calls only when either counted some. */
export function addTotals(a: UsageTotals, b: UsageTotals): UsageTotals {
  const estimatedCalls = (a.estimatedCalls ?? 0) + (b.estimatedCalls ?? 0);
  const sum = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    calls: a.calls + b.calls,
    ...(estimatedCalls > 0 && { estimatedCalls }),
  };
  if (a.cost === undefined && b.cost === undefined) return sum;
  return { ...sum, cost: (a.cost ?? 0) + (b.cost ?? 0) };
}

export const NO_USAGE: UsageTotals = { inputTokens: 0, outputTokens: 0, calls: 0 };

/**
 * The cells of `days` that `query` counts (its user's only, when it names one), summed by its
 * grouping. With `personOf`, a person's identities are one user (`person:<id>`), and a user's own
 * cells are all of their person's.
 */
export function summarizeDays(
  days: readonly UsageDay[],
  query: Pick<UsageQuery, 'by' | 'userId'>,
  personOf: (userId: string) => string | undefined = () => undefined,
): { rows: UsageRow[]; total: UsageTotals } {
  const userOf = (userId: string) => {
    const person = personOf(userId);
    return person === undefined ? userId : `person:${person}`;
  };
  const own = query.userId === undefined ? undefined : userOf(query.userId);
  const rows = new Map<string, UsageTotals>();
  let total = NO_USAGE;
  for (const cell of days.flatMap((day) => day.cells)) {
    if (own !== undefined && userOf(cell.userId) !== own) continue;
    const name = query.by === 'user' ? userOf(cell.userId) : groupOf(cell, query.by);
    rows.set(name, addTotals(rows.get(name) ?? NO_USAGE, cell));
    total = addTotals(total, cell);
  }
  const sorted = [...rows].map(([name, totals]) => ({ name, ...totals })).sort(byTokens);
  return { rows: sorted, total };
}

/** The totals of the cells `where` accepts (a budget's agent or user). */
export function sumCells(cells: readonly UsageCell[], where: (cell: UsageCell) => boolean): UsageTotals {
  return cells.filter(where).reduce<UsageTotals>((sum, cell) => addTotals(sum, cell), NO_USAGE);
}

function groupOf(cell: UsageCell, by: UsageGrouping): string {
  return by === 'agent' ? cell.agentId : by === 'channel' ? cell.channel : cell.userId;
}

function byTokens(a: UsageRow, b: UsageRow): number {
  const difference = b.inputTokens + b.outputTokens - (a.inputTokens + a.outputTokens);
  return difference !== 0 ? difference : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
