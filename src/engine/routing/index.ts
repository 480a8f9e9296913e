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
export type { QueueMode, QueueStatus } from './queue-types.js';
export { createRouter } from './router.js';
export type { Router, RouterOptions } from './router-types.js';
export { KEPT_FOR_RESTART } from './session-queues.js';
export { type SlotHold, TurnSlots } from './turn-slots.js';
