export {
  createWebchatAdapter,
  type WebchatAdapter,
  type WebchatEvent,
  type WebchatJournal,
  type WebchatShown,
} from './webchat-adapter.js';
export type { WebchatClick, WebchatInput } from './webchat-inbound.js';
