export { type ActivationEntry, MAX_LOGGED_ACTIVATIONS } from './activation-log.js';
export { type AgentActivityView, USEFUL_EFFECT_TOOLS } from './agent-activity.js';
export {
  createSignalDelivery,
  type SignalDelivery,
  type SignalDeliveryOptions,
  scheduleSignals,
} from './delivery.js';
export { MAX_HOOK_BACKOFF_MS } from './hook-health.js';
export { renderTemplate } from './monitors.js';
export { backoffDelay, NUDGE_KINDS, SCHEDULER_SOURCE } from './nudges.js';
export type { SignalTurns, WakeTurnRequest } from './ports.js';
export { createPoster, type Poster } from './posts.js';
export {
  createScheduler,
  type ScheduledHook,
  type Scheduler,
  type SchedulerAgent,
  type SchedulerOptions,
} from './scheduler.js';
export {
  createSignalQueue,
  type DeliveredSignal,
  MAX_DELIVERED_SIGNALS,
  type SignalQueue,
  type SignalQueueOptions,
  type SignalRow,
} from './signal-queue.js';
export { MESSAGE_SIGNAL_KIND, type Signal, type SignalInput } from './types.js';
export type { MessagesWoken } from './woken-messages.js';
