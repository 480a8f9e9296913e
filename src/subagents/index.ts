export {
  createSubagentManager,
  type SubagentManager,
  type SubagentManagerOptions,
} from './subagent-manager.js';
export type { SubagentTurnRequest, SubagentTurns, TurnReport } from './types.js';
