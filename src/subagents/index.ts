export { createSubagentManager, type SubagentManager } from './subagent-manager.js';
