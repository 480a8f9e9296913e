export { createRunStore, type RunRecord, type RunStatus, type RunStore } from './run-store.js';
export { createSessionStore, type SessionStore } from './session-store.js';
export type {
  ChannelName,
  DeliveryRoute,
  NewTranscriptEntry,
  SessionRecord,
  TranscriptEntry,
  TranscriptRole,
  TranscriptToolCall,
} from './types.js';
