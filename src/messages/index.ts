export type {
  ChannelName,
  DeliveryRoute,
  DispatchOptions,
  DispatchResult,
  InboundHandler,
  InboundMessage,
  OutboundDelta,
  OutboundMessage,
  TurnStatus,
} from './types.js';
