export { type HookHealth, MAX_HOOK_BACKOFF_MS } from './hook-health.js';
export { parseRoute } from './routes.js';
export { createScheduler, type Scheduler, type SchedulerAgent } from './scheduler.js';
export { createSignalQueue, type SignalQueue } from './signal-queue.js';
export { SIGNAL_PRIORITIES, type Signal, type SignalInput, type SignalPriority } from './types.js';
