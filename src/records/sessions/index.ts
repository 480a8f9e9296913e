export { createRunStore, type RunRecord, type RunStatus, type RunStore, type RunUsage } from './run-store.js';
export type { RuntimeTurnRequest } from './runtime-turn.js';
export { isSessionCursor } from './session-cursor.js';
export {
  createSessionEvents,
  type SessionEvent,
  type SessionEventListener,
  type SessionEvents,
  type SessionEventsOptions,
} from './session-events.js';
export { SESSION_RECORD_INDEX, TRANSCRIPT_INDEX } from './session-indexes.js';
export {
  chatSessionKey,
  childSessionKey,
  MAX_SESSION_KEY_LENGTH,
  mainSessionKey,
  subagentDepth,
} from './session-key.js';
export { createSessionStore, type SessionStore, type SessionStoreOptions } from './session-store.js';
export {
  type QueueStatus,
  type SessionDetails,
  type SessionSummary,
  summarizeSession,
} from './session-summary.js';
export type {
  NewTranscriptEntry,
  SessionIdentity,
  SessionListOptions,
  SessionPage,
  SessionRecord,
  TranscriptCompaction,
  TranscriptEntry,
  TranscriptReadOptions,
  TranscriptRole,
  TranscriptToolCall,
} from './types.js';
