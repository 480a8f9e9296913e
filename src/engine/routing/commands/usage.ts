import {
  USAGE_GROUPINGS,
  USAGE_PERIODS,
  type UsageGrouping,
  type UsagePeriod,
  type UsageQuery,
  usageTable,
} from '../../usage/index.js';
import type { ChatCommand } from './types.js';

const SYNTAX = 'Usage: /usage [today|week] [agent|channel|user]';

/**
 * `/usage [today|week] [agent|channel|user]`: tokens (and cost, with prices set) of today or the
 * last 7 usage days, by agent (default), channel or user. Owners see everyone's; anyone else sees
 * only their own, and is told so.
 */
export const usageCommand: ChatCommand = {
  name: 'usage',
  summary: 'Show tokens and cost of today or the last 7 days, by agent, channel or user.',
  options: [
    { kind: 'text', name: 'period', description: 'today (default) or week (the last 7 days).' },
    { kind: 'text', name: 'by', description: 'agent (default), channel or user.' },
  ],
  async run({ args, usage, principal, message }) {
    if (!usage) return 'Usage is not recorded in this gateway.';
    const parsed = parseUsageArgs(args);
    if (typeof parsed === 'string') return `${parsed}\n${SYNTAX}`;
    if (principal.rules.sees === 'everyone') return usageTable(await usage.report(parsed));
    const own = usageTable(await usage.report({ ...parsed, userId: message.senderId }));
    const why = `role ${principal.role} sees its own only (roles.${principal.role}.sees: own)`;
    return `Only your own usage (${message.senderId}) is shown; ${why}.\n${own}`;
  },
};

/** The period and grouping in `args`, in any order, each at most once; a message naming a bad word otherwise. */
export function parseUsageArgs(args: string): UsageQuery | string {
  let period: UsagePeriod | undefined;
  let by: UsageGrouping | undefined;
  for (const word of args.split(/\s+/).filter(Boolean)) {
    const lower = word.toLowerCase();
    if (isOneOf(USAGE_PERIODS, lower)) {
      if (period !== undefined) return `Give one period, not both "${period}" and "${word}".`;
      period = lower;
    } else if (isOneOf(USAGE_GROUPINGS, lower)) {
      if (by !== undefined) return `Group by one thing, not both "${by}" and "${word}".`;
      by = lower;
    } else {
      return (
        `/usage does not know "${word}": the period is ${USAGE_PERIODS.join(' or ')}, ` +
        `the grouping ${USAGE_GROUPINGS.join(', ')}.`
      );
    }
  }
  return { period: period ?? 'today', by: by ?? 'agent' };
}

function isOneOf<Word extends string>(words: readonly Word[], word: string): word is Word {
  return (words as readonly string[]).includes(word);
}
