export { runSubagentsAction } from './actions.js';
export { buildSubagentList, latestRunPerChild, type SubagentList } from './list-view.js';
export {
  createSubagentRegistry,
  isActiveSubagentRun,
  type SubagentOutcome,
  type SubagentOutcomeStatus,
  type SubagentRegistry,
  type SubagentRun,
  type SubagentRunStatus,
} from './registry.js';
export { createSubagentManager, SubagentManager, type SubagentManagerOptions } from './subagent-manager.js';
export type { SteerDelivery, SteerResult, SubagentsService, SubagentTurns, TurnReport } from './types.js';
