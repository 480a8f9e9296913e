export {
  createWebchatAdapter,
  type WebchatAdapter,
  type WebchatEvent,
} from './webchat-adapter.js';
export type { WebchatClick, WebchatInput } from './webchat-inbound.js';
