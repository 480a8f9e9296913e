export { createRunStore, type RunRecord, type RunStatus, type RunStore } from './run-store.js';
export type { RuntimeTurnRequest } from './runtime-turn.js';
export {
  chatSessionKey,
  childSessionKey,
  MAX_SESSION_KEY_LENGTH,
  mainSessionKey,
  subagentDepth,
} from './session-key.js';
export { createSessionStore, type SessionStore } from './session-store.js';
export {
  type QueueStatus,
  type SessionDetails,
  type SessionSummary,
  summarizeSession,
} from './session-summary.js';
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
  NewTranscriptEntry,
  SessionRecord,
  TranscriptEntry,
  TranscriptRole,
  TranscriptToolCall,
} from './types.js';
