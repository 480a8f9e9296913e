import type { Logger } from '../../base/logging/index.js';
import type { AgentActivityView } from './agent-activity.js';
import { createHookHealth } from './hook-health.js';
import type { SignalQueue } from './signal-queue.js';
import type { Signal, SignalInput } from './types.js';

export interface SchedulerAgent {
  id: string;
  displayName: string;
  role: string;
  status: 'idle' | 'running';
  /** Suzumio's state (`quiet`, `running`, `failed`; see agent-activity.ts) and since when (ISO). */
  state?: AgentActivityView['state'];
  stateSince?: string;
  /** While `failed`: why its last wake turn failed. */
  lastError?: string;
  activeActivationId: string | null;
  updatedAt: string;
  modelAlive: boolean;
}

/** A toolpack's scheduler hook as the tick runs it: what it returns (an array) is recorded. */
export interface ScheduledHook {
  toolpackId: string;
  run(context: Record<string, unknown>): Promise<unknown>;
}

export interface SchedulerOptions {
  tickMs: number;
  project: string;
  queue: SignalQueue;
  agents(): SchedulerAgent[];
  /** Wakes an idle agent with signals (a turn in its main session). */
  wake(agentId: string, signals: Signal[]): Promise<void>;
  /** Toolpack scheduler hooks, called after the signals are delivered. */
  hooks: readonly ScheduledHook[];
  /** Records what a hook returns or records. */
  record(signal: SignalInput, source: string): Promise<void>;
  /** After the hooks, with the roster read again: the nudges and monitors (see supervision.ts). */
  supervise?(agents: SchedulerAgent[]): Promise<void>;
  logger: Logger;
}

/**
 * The scheduler tick: first deliver pending signals to idle agents, then run each toolpack's
 * scheduler hook and record the signals it returns. Ticks never overlap; a hook that throws does
 * not stop the tick, and is backed off (see `createHookHealth`): logged once per distinct error,
 * retried after a delay that doubles with each failure in a row, its state in `hookHealth()`.
 */
export function createScheduler(options: SchedulerOptions) {
  const { queue, logger } = options;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const health = createHookHealth({
    toolpackIds: options.hooks.map((hook) => hook.toolpackId),
    tickMs: options.tickMs,
    logger,
  });

  async function tick(): Promise<void> {
    await queue.load();
    const agents = options.agents();
    for (const agentId of await queue.targets()) {
      if (agents.find((agent) => agent.id === agentId)?.status !== 'idle') continue;
      const signals = await queue.take(agentId);
      if (signals.length > 0) await options.wake(agentId, signals);
    }
    for (const hook of options.hooks) {
      if (!health.due(hook.toolpackId)) continue;
      const recorded: SignalInput[] = [];
      try {
        const returned = await hook.run({
          project: options.project,
          toolpackId: hook.toolpackId,
          now: Date.now(),
          agents: options.agents(),
          recordSignal: (signal: SignalInput) => void recorded.push(signal),
          hasPendingSignals: () => queue.hasPending(),
          hasPendingSignalsForAgent: (agentId: string) => queue.hasPending(agentId),
        });
        if (Array.isArray(returned)) recorded.push(...(returned as SignalInput[]));
        health.succeeded(hook.toolpackId);
      } catch (error) {
        health.failed(hook.toolpackId, error);
      }
      for (const signal of recorded) await options.record(signal, `toolpack:${hook.toolpackId}`);
    }
    await options.supervise?.(options.agents());
  }

  function runTick(): Promise<void> {
    if (!running) {
      running = tick()
        .catch((error: unknown) => logger.error({ err: error }, 'scheduler tick failed'))
        .finally(() => {
          running = undefined;
        });
    }
    return running;
  }

  return {
    tick: runTick,
    /** Each toolpack hook's state: ok, or failing with the last error and when it is tried again. */
    hookHealth: health.report,
    start(): void {
      timer = setInterval(() => void runTick(), options.tickMs);
    },
    async stop(): Promise<void> {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}

export type Scheduler = ReturnType<typeof createScheduler>;
