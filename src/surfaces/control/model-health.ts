import { errorText } from '../../base/errors/index.js';
import type { FailoverState, ModelProvider } from '../../engine/agents/index.js';
import type { FailoverView, ModelStatus } from './contracts.js';

/**
 * Each configured model's reachability for the health page: the outcome of its last call in this
 * process (when, whether it answered, how long it took, the error scrubbed). No probe is sent: a
 * check call would cost tokens and quota on every look at the page, while every turn already is
 * one. A model not called since the start shows no outcome. With the gateway's failover state,
 * each model's cooldown and the last failover are shown too.
 */
export interface ModelHealth {
  /** The provider, its calls recorded. */
  watch(provider: ModelProvider): ModelProvider;
  /** Every watched model, in the order they were configured. */
  report(): ModelStatus[];
  /** The last time a fallback answered, scrubbed. */
  lastFailover(): FailoverView | undefined;
}

export function createModelHealth(options: {
  scrub(text: string): string;
  failover?: Pick<FailoverState, 'cooldownUntil' | 'lastFailover'>;
  now?: () => number;
}): ModelHealth {
  const now = options.now ?? Date.now;
  const models = new Map<string, ModelStatus>();
  const record = (name: string, started: number, error?: unknown) => {
    const model = models.get(name);
    if (!model) return;
    const at = new Date(now()).toISOString();
    const ms = now() - started;
    model.lastCall =
      error === undefined
        ? { at, ok: true, ms }
        : { at, ok: false, ms, error: options.scrub(errorText(error)) };
  };
  return {
    watch(provider) {
      models.set(provider.name, { name: provider.name, description: options.scrub(provider.description) });
      return {
        name: provider.name,
        description: provider.description,
        async complete(request) {
          const started = now();
          try {
            const response = await provider.complete(request);
            record(provider.name, started);
            return response;
          } catch (error) {
            // An abort is the run's (a stop, a kill), not the model's: it says nothing of reachability.
            if (!request.signal?.aborted) record(provider.name, started, error);
            throw error;
          }
        },
      };
    },
    report: () =>
      [...models.values()].map((model) => {
        const until = options.failover?.cooldownUntil(model.name);
        return { ...model, ...(until === undefined ? {} : { cooldownUntil: new Date(until).toISOString() }) };
      }),
    lastFailover() {
      const last = options.failover?.lastFailover();
      return last && { ...last, why: options.scrub(last.why) };
    },
  };
}
