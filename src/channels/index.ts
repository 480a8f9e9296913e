export type {
  ChannelAdapter,
  ChannelName,
  DeliveryRoute,
  DispatchResult,
  InboundHandler,
  InboundMessage,
  OutboundDelta,
  OutboundMessage,
} from './types.js';
export { createWebchatAdapter, type WebchatAdapter, type WebchatEvent } from './webchat/index.js';
