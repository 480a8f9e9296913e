import type { Config } from '../../base/config/index.js';
import type { Logger } from '../../base/logging/index.js';
import type { Store } from '../../records/store/index.js';
import type { AgentActivity, AgentFailure } from './agent-activity.js';
import type { NudgeSnapshot, Nudges } from './nudges.js';

interface Saved {
  failures: { agentId: string; failure: AgentFailure }[];
  nudges: NudgeSnapshot;
}

const KEY = 'state';

/**
 * What the nudges need across a restart, in the store (namespace `scheduler-nudges`, one entry):
 * the failed agents and their retry counts, and the delayed nudges. Only when a nudge or monitor
 * that reads them is enabled (no namespace is opened otherwise). Written when it changed, at the
 * end of a tick or a wake turn; read once, at the first tick (a wake turn started before keeps
 * its own state).
 */
export function createSupervisionState(options: {
  config: Config;
  store: Store | undefined;
  activity: AgentActivity;
  nudges: Nudges;
  logger: Logger;
}) {
  const { scheduler } = options.config;
  const needed =
    scheduler.noEffectNudge.enabled || scheduler.failedNudge.enabled || scheduler.failedAgentMonitor.enabled;
  const namespace = needed && options.store ? options.store.namespace<Saved>('scheduler-nudges') : undefined;
  let loaded: Promise<void> | undefined;
  let written = '';

  async function load(): Promise<void> {
    const saved = await namespace?.get(KEY);
    if (!saved) return;
    written = JSON.stringify(saved);
    for (const { agentId, failure } of saved.failures ?? [])
      options.activity.restoreFailure(agentId, failure);
    if (saved.nudges) options.nudges.restore(saved.nudges);
  }

  return {
    load(): Promise<void> {
      loaded ??= load().catch((error: unknown) =>
        options.logger.warn({ err: error }, 'saved nudge state not read; starting without it'),
      );
      return loaded;
    },
    async save(): Promise<void> {
      if (!namespace) return;
      const saved: Saved = { failures: options.activity.failures(), nudges: options.nudges.snapshot() };
      const text = JSON.stringify(saved);
      if (text === written) return;
      written = text;
      await namespace.set(KEY, saved);
    },
  };
}
