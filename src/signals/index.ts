export {
  createSignalDelivery,
  type SignalDelivery,
  type SignalDeliveryOptions,
  scheduleSignals,
} from './delivery.js';
export { MAX_HOOK_BACKOFF_MS } from './hook-health.js';
export type { Deliver, SignalTurns, WakeTurnRequest } from './ports.js';
export { createPoster, type Poster } from './posts.js';
export {
  createScheduler,
  type ScheduledHook,
  type Scheduler,
  type SchedulerAgent,
  type SchedulerOptions,
} from './scheduler.js';
export { createSignalQueue, type SignalQueue, type SignalQueueOptions } from './signal-queue.js';
export type { Signal, SignalInput } from './types.js';
export type { MessagesWoken } from './woken-messages.js';
