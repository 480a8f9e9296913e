export {
  type AgentMessage,
  DEFAULT_PRIORITY,
  isPriority,
  notAnAgent,
  PRIORITIES,
  type Priority,
  priorityRank,
  type SendOutcome,
  USER_RECIPIENT,
} from './agent-message.js';
export type { CommandOption, NativeCommand } from './commands.js';
export { parseRoute } from './route-text.js';
export type {
  ChannelName,
  ContextMessage,
  DeliveryRoute,
  DispatchOptions,
  DispatchResult,
  InboundFile,
  InboundHandler,
  InboundMessage,
  OutboundDelta,
  OutboundFile,
  OutboundMessage,
  ReplyAction,
  TurnStatus,
} from './types.js';
