export { createRunStore, type RunRecord, type RunStatus, type RunStore } from './run-store.js';
export { createSessionStore, type SessionStore } from './session-store.js';
export {
  createSubagentRegistry,
  isActiveSubagentRun,
  type SubagentOutcome,
  type SubagentOutcomeStatus,
  type SubagentRegistry,
  type SubagentRun,
  type SubagentRunStatus,
} from './subagent-registry.js';
export type {
  ChannelName,
  DeliveryRoute,
  NewTranscriptEntry,
  SessionRecord,
  TranscriptEntry,
  TranscriptRole,
  TranscriptToolCall,
} from './types.js';
