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
export {
  type CommunicationPolicy,
  type CommunicationSettings,
  communicationPolicy,
  communicationRefusal,
  communicationRules,
  type PolicedSend,
} from './communication-policy.js';
export type { Outbound, OutboundFor } from './outbound.js';
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
