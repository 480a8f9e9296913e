export { createSessionStore, type SessionStore } from './session-store.js';
export type {
  ChannelName,
  DeliveryRoute,
  NewTranscriptEntry,
  SessionRecord,
  TranscriptEntry,
  TranscriptRole,
} from './types.js';
