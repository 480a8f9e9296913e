export { depthOf } from './announcements.js';
export { createSubagentManager, type SubagentManager } from './subagent-manager.js';
