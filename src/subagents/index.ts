export {
  createSubagentManager,
  type SubagentManager,
  type SubagentManagerOptions,
} from './subagent-manager.js';
export type { SubagentTurns, TurnReport } from './types.js';
