import type { Config } from '../../base/config/index.js';
import type { Logger } from '../../base/logging/index.js';
import { type AgentMessage, communicationPolicy, type SendOutcome } from '../../base/messages/index.js';
import type { Store } from '../../records/store/index.js';
import { createAgentActivity, USEFUL_EFFECT_TOOLS } from './agent-activity.js';
import { createMonitors } from './monitors.js';
import { createNudges, SCHEDULER_SOURCE } from './nudges.js';
import type { SchedulerAgent } from './scheduler.js';
import type { SignalQueue } from './signal-queue.js';
import { createSupervisionState } from './supervision-state.js';
import type { SignalInput } from './types.js';
import type { WakeObserver } from './wake.js';

export interface SupervisionOptions {
  config: Config;
  /** Where failures and delayed nudges are kept across a restart (see supervision-state.ts). */
  store?: Store;
  queue: SignalQueue;
  record(signal: SignalInput, source: string): Promise<void>;
  send(message: AgentMessage): Promise<SendOutcome>;
  logger: Logger;
  now?: () => number;
}

/**
 * The agents' states, the nudges and the monitors together: what the waker reports (`observer`),
 * what a tool call reports (`toolSucceeded`), and the part of the tick after the toolpacks' hooks
 * (`tick`: failed retries, failed-agent monitor, quiet-agent monitor, all-quiet nudge, Suzumio's
 * order). A part that throws is logged and does not stop the others.
 */
export function createSupervision(options: SupervisionOptions) {
  const { config, logger } = options;
  const now = options.now ?? Date.now;
  const activity = createAgentActivity({ agents: Object.keys(config.agents), now });
  const nudges = createNudges({
    scheduler: config.scheduler,
    coordinator: communicationPolicy(config).coordinator,
    activity,
    hasPending: (agentId) => options.queue.hasPending(agentId),
    record: (signal) => options.record(signal, SCHEDULER_SOURCE),
    now,
  });
  const monitors = createMonitors({
    scheduler: config.scheduler,
    project: config.project.id,
    activity,
    send: options.send,
    now,
  });
  const saved = createSupervisionState({ config, store: options.store, activity, nudges, logger });
  const guarded = async (part: string, run: () => Promise<void>) => {
    try {
      await run();
    } catch (error) {
      logger.error({ err: error, part }, 'scheduler nudge or monitor failed');
    }
  };
  const observer: WakeObserver = {
    started: (agentId, signals) => activity.wakeStarted(agentId, signals),
    ended: (agentId, ended) =>
      guarded('noEffectNudge', () => nudges.afterWake(activity.wakeEnded(agentId, ended))),
  };
  return {
    activity,
    observer,
    /** A tool call succeeded: one of USEFUL_EFFECT_TOOLS in a wake turn is a useful effect. */
    toolSucceeded(call: { tool: string; agentId: string; sessionKey: string }): void {
      if (USEFUL_EFFECT_TOOLS.has(call.tool)) activity.effect(call.agentId, call.sessionKey);
    },
    /** A signal the agent's tool call recorded: useful when for another agent or a route, or marked `usefulEffect`. */
    signalRecorded(agentId: string, signal: unknown): void {
      if (typeof signal !== 'object' || signal === null) return;
      const { targetAgent, targetChannel, usefulEffect } = signal as Record<string, unknown>;
      const forOther =
        (typeof targetAgent === 'string' && targetAgent !== agentId) || typeof targetChannel === 'string';
      const marked = usefulEffect === true || (typeof usefulEffect === 'string' && usefulEffect !== '');
      if (forOther || marked) activity.effect(agentId);
    },
    async tick(agents: SchedulerAgent[]): Promise<void> {
      await saved.load();
      await guarded('failedNudge', () => nudges.tickFailed(agents));
      await guarded('monitors', () => monitors.tick(agents));
      await guarded('allQuietNudge', () => nudges.tickAllQuiet(agents));
      await guarded('saving', () => saved.save());
    },
  };
}

export type Supervision = ReturnType<typeof createSupervision>;
