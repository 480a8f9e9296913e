import { type AccessConfig, identitiesOf, resolvePrincipal } from '../../base/access/index.js';
import type { BudgetsConfig } from '../../base/config/index.js';
import type { UsageCell, UsageTotals } from './types.js';
import { nextUsageDayStart, usageDay } from './usage-days.js';
import { type UsageLedger, usageUser } from './usage-ledger.js';
import { sumCells } from './usage-report.js';
import { count, duration, money } from './usage-text.js';

/** Who starts a turn, as the budgets see it. */
export interface BudgetTurn {
  agentId: string;
  senderId: string;
  isOwner: boolean;
}

export interface BudgetGate {
  /** Why this turn may not start (a daily budget is spent), said for the chat; undefined when it may. */
  refusal(turn: BudgetTurn): Promise<string | undefined>;
}

type Limit = { tokens?: number; cost?: number };

/** One limit to check: whose it is, as the message names it, and which cells it counts. */
interface Budget {
  whose: string;
  limit: Limit;
  counts(cell: UsageCell): boolean;
}

const NOBODY: AccessConfig = { owners: [], people: {}, roles: {} };

/**
 * The daily budgets of `budgets` and the roles: an agent's counts every call of that agent (the
 * runtime's turns too); a user's the calls of turns they started or caused, all of their person's
 * identities as one (`access`: `people`). A user's limit is the first of: a `budgets.users` entry
 * of the sender or of another identity of their person, their role's `budget`, `budgets.users['*']`.
 * Spent means the day's total reached the limit; the call that crossed it was already made (a turn
 * is checked before it starts, never stopped midway). Owners pass when `ownersExempt`.
 */
export function createBudgetGate(options: {
  ledger: UsageLedger;
  budgets: BudgetsConfig;
  /** Who a sender is (person, role); without it every sender is a person of their own with no role budget. */
  access?: AccessConfig;
}): BudgetGate {
  const { ledger, budgets } = options;
  const access = options.access ?? NOBODY;
  return {
    async refusal(turn) {
      if (turn.isOwner && budgets.ownersExempt) return undefined;
      const applying = budgetsOf(budgets, access, turn);
      if (applying.length === 0) return undefined;
      const now = ledger.now();
      const cells = (await ledger.day(usageDay(now, ledger.timeZone)))?.cells ?? [];
      for (const budget of applying) {
        const spent = sumCells(cells, budget.counts);
        const over = spentPart(budget.limit, spent);
        if (over) return refusalText(budget, over, now, ledger.timeZone);
      }
      return undefined;
    },
  };
}

function budgetsOf(budgets: BudgetsConfig, access: AccessConfig, turn: BudgetTurn): Budget[] {
  const found: Budget[] = [];
  const agentLimit = budgets.agents[turn.agentId];
  if (agentLimit) {
    const whose = `agent "${turn.agentId}"`;
    found.push({ whose, limit: agentLimit, counts: (cell) => cell.agentId === turn.agentId });
  }
  const user = userBudget(budgets, access, turn.senderId);
  if (user) found.push(user);
  return found;
}

/**
 * A chat sender's limit, counting the calls of every identity of their person; runtime work
 * nobody caused (`usageUser` is `runtime`) has none. The message names the person (or the sender
 * no person lists) and where the limit comes from.
 */
function userBudget(budgets: BudgetsConfig, access: AccessConfig, senderId: string): Budget | undefined {
  if (usageUser(senderId) !== senderId) return undefined;
  const principal = resolvePrincipal(access, senderId);
  // The sender's own identity first: its entry wins over another identity's of the same person.
  const identities = identitiesOf(access, senderId);
  const named = identities.find((identity) => budgets.users[identity] !== undefined);
  const roleLimit = principal.role === 'owner' ? undefined : principal.rules.budget;
  const [limit, source] =
    named !== undefined
      ? [budgets.users[named], principal.personId === undefined ? '' : ` (budgets.users: ${named})`]
      : roleLimit !== undefined
        ? [roleLimit, ` (role ${principal.role}: roles.${principal.role}.budget)`]
        : [budgets.users['*'], ' (the limit of each user, *)'];
  if (limit === undefined) return undefined;
  const who = principal.personId === undefined ? `user ${senderId}` : `person ${principal.personId}`;
  const counted = new Set(identities);
  return { whose: `${who}${source}`, limit, counts: (cell) => counted.has(cell.userId) };
}

/** The part of `limit` that `spent` reached: its name, what was spent and the limit, as text. */
function spentPart(
  limit: Limit,
  spent: UsageTotals,
): { name: string; spent: string; limit: string } | undefined {
  const tokens = spent.inputTokens + spent.outputTokens;
  if (limit.tokens !== undefined && tokens >= limit.tokens)
    return { name: 'token', spent: `${count(tokens)} tokens`, limit: `${count(limit.tokens)} tokens` };
  const cost = spent.cost ?? 0;
  if (limit.cost !== undefined && cost >= limit.cost)
    return { name: 'cost', spent: `a cost of ${money(cost)}`, limit: money(limit.cost) };
  return undefined;
}

function refusalText(
  budget: Budget,
  over: { name: string; spent: string; limit: string },
  now: Date,
  timeZone: string,
): string {
  const resets = nextUsageDayStart(now, timeZone);
  return (
    `The daily ${over.name} budget of ${budget.whose} is spent: ${over.spent} today, the limit is ${over.limit}. ` +
    `No new turn starts until it resets at midnight ${timeZone} (${resets.toISOString().replace(/\.\d+Z$/, 'Z')}, ` +
    `in ${duration(resets.getTime() - now.getTime())}).`
  );
}
