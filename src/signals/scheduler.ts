import type { Logger } from '../logging/index.js';
import type { SignalQueue } from './signal-queue.js';
import type { Signal, SignalInput } from './types.js';

export interface SchedulerAgent {
  id: string;
  displayName: string;
  role: string;
  status: 'idle' | 'running';
  activeActivationId: string | null;
  updatedAt: string;
  modelAlive: boolean;
}

export interface SchedulerOptions {
  tickMs: number;
  project: string;
  queue: SignalQueue;
  agents(): SchedulerAgent[];
  /** Wakes an idle agent with signals (a turn in its main session). */
  wake(agentId: string, signals: Signal[]): Promise<void>;
  /** Toolpack scheduler hooks, called after the signals are delivered. */
  hooks: readonly { toolpackId: string; run(context: Record<string, unknown>): Promise<unknown> }[];
  /** Records what a hook returns or records. */
  record(signal: SignalInput, source: string): Promise<void>;
  logger: Logger;
}

/**
 * The scheduler tick: first deliver pending signals to idle agents, then run each toolpack's
 * scheduler hook and record the signals it returns. Ticks never overlap; a hook that throws is
 * logged and the tick goes on.
 */
export function createScheduler(options: SchedulerOptions) {
  const { queue, logger } = options;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  async function tick(): Promise<void> {
    await queue.load();
    const agents = options.agents();
    for (const agentId of await queue.targets()) {
      if (agents.find((agent) => agent.id === agentId)?.status !== 'idle') continue;
      const signals = await queue.take(agentId);
      if (signals.length > 0) await options.wake(agentId, signals);
    }
    for (const hook of options.hooks) {
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
      } catch (error) {
        logger.warn({ err: error, toolpack: hook.toolpackId }, 'scheduler hook failed; the tick goes on');
      }
      for (const signal of recorded) await options.record(signal, `toolpack:${hook.toolpackId}`);
    }
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
