export { resolveAgentId, sessionForMessage } from './bindings.js';
export {
  BUILTIN_COMMANDS,
  type ChatCommand,
  type CommandContext,
  parseCommand,
  type RescueAuditStep,
  type RescuePort,
  type RescueStatus,
} from './commands/index.js';
export { createRouter, type Router, type RouterOptions } from './router.js';
export { KEPT_FOR_RESTART, type QueueMode, type QueueStatus } from './session-queues.js';
export { type SlotHold, TurnSlots } from './turn-slots.js';
