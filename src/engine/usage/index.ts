export { type BudgetGate, type BudgetTurn, createBudgetGate } from './budget-gate.js';
export {
  USAGE_GROUPINGS,
  USAGE_PERIODS,
  type UsageCall,
  type UsageCell,
  type UsageDay,
  type UsageGrouping,
  type UsagePeriod,
  type UsageQuery,
  type UsageReport,
  type UsageRow,
  type UsageTotals,
} from './types.js';
export { lastUsageDays, nextUsageDayStart, usageDay } from './usage-days.js';
export { createUsageLedger, RUNTIME_USER, type UsageLedger, usageUser } from './usage-ledger.js';
export { usageTable } from './usage-table.js';
