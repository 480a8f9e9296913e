export {
  createWebchatAdapter,
  type WebchatAdapter,
  type WebchatEvent,
  type WebchatInput,
} from './webchat-adapter.js';
