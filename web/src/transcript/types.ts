// What the sessions API answers (`GET /api/sessions`, `/api/sessions/:key/transcript`) and the
// events stream (`GET /api/events`) carries: the server's contracts (`src/surfaces/control/contracts.ts`),
// imported as types only, so the page reads what the route answers.
export type {
  QueueStatus,
  SessionPage,
  SessionStreamEvent,
  SessionSummary,
  TranscriptEntry,
  TranscriptPage,
  TranscriptToolCall,
} from '../../../src/surfaces/control/contracts.js';
