import type { Config } from '../../../base/config/index.js';
import { SwitchboardError } from '../../../base/errors/index.js';
import type { Logger } from '../../../base/logging/index.js';
import {
  ModelCallError,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
} from '../providers/index.js';
import type { FailoverState } from './failover-state.js';
import { allCoolingDown, chainError, coolingMiss, failedMiss, type ModelMiss } from './model-misses.js';

/**
 * One turn's model over an agent's model chain (primary first, then its fallbacks). A call goes
 * to the first model not cooling down; a failure that may fail over (`ModelCallError.failover`:
 * 429, 529, 5xx, timeouts, connection errors, after the model's own retries) goes on at once to
 * the next; any other failure, or the last model's, ends the call. A 429 with a `retry-after`
 * puts its model in cooldown (gateway-wide). Once a fallback answered, the turn's later rounds
 * start at it: a failing primary is not paid for again in every round.
 */
export interface FailoverProvider extends ModelProvider {
  /** The turn's first fallback answer and why the models before it did not answer. */
  fallback(): { model: string; why: string } | undefined;
  /** The models that answered this turn's calls, each once, in order. */
  answered(): string[];
}

export interface FailoverProviderOptions {
  agentId: string;
  /** `modelChain(config, agent.model)`: at least one name. */
  chain: readonly string[];
  /** One provider per `models.<name>` (each wrapped as the gateway wants it, e.g. the health page's). */
  providers: ReadonlyMap<string, ModelProvider>;
  models: Config['models'];
  state: FailoverState;
  logger: Logger;
}

/** The retries of a model a fallback follows; without one, the provider's default (2). */
const RETRIES_BEFORE_FALLBACK = 1;

export function createFailoverProvider(options: FailoverProviderOptions): FailoverProvider {
  const { chain, state } = options;
  const providers = chain.map((name) => providerOf(options, name));
  const primary = providers[0] as ModelProvider;
  let start = 0;
  let fallback: { model: string; why: string } | undefined;
  const answered: string[] = [];

  const complete = async (request: ModelRequest): Promise<ModelResponse> => {
    request.signal.throwIfAborted();
    // The turn's current model first, then the chain in order (the primary again, should it fail).
    const order = [providers[start] as ModelProvider, ...providers.filter((_, index) => index !== start)];
    const usable = order.filter((provider) => state.cooldownUntil(provider.name) === undefined);
    if (usable.length === 0) throw allCoolingDown(options.agentId, state, order);
    const misses: ModelMiss[] = [];
    for (const provider of order) {
      const until = state.cooldownUntil(provider.name);
      if (until !== undefined) {
        misses.push(coolingMiss(provider.name, until, state.now()));
        continue;
      }
      const last = provider === usable.at(-1);
      const maxRetries =
        options.models[provider.name]?.maxRetries ?? (last ? undefined : RETRIES_BEFORE_FALLBACK);
      try {
        const response = await provider.complete({
          ...request,
          ...(maxRetries === undefined ? {} : { maxRetries }),
        });
        return answer(provider.name, response, misses, order[0]?.name ?? provider.name);
      } catch (error) {
        if (!(error instanceof ModelCallError)) throw error;
        misses.push(failedMiss(state, provider.name, error));
        if (!error.failover || last) break;
        options.logger.warn(
          { model: provider.name, reason: error.reason },
          'model failed; trying the next one',
        );
      }
    }
    throw chainError(misses);
  };

  const answer = (
    name: string,
    response: ModelResponse,
    misses: ModelMiss[],
    from: string,
  ): ModelResponse => {
    if (!answered.includes(name)) answered.push(name);
    start = chain.indexOf(name);
    if (name === primary.name) return response;
    if (misses.length > 0) {
      const why = misses.map((miss) => miss.why).join('; ');
      fallback ??= { model: name, why };
      state.recordFailover({ agentId: options.agentId, from, to: name, why });
      // Only skips (cooldowns) are no news: the failure that started the cooldown was logged.
      const level = misses.some((miss) => miss.error) ? 'warn' : 'info';
      options.logger[level]({ from, to: name, why }, 'model failover: a fallback answered');
    }
    return { ...response, model: name };
  };

  return {
    name: primary.name,
    description: primary.description,
    complete,
    fallback: () => fallback,
    answered: () => [...answered],
  };
}

function providerOf(options: FailoverProviderOptions, name: string): ModelProvider {
  const provider = options.providers.get(name);
  if (provider) return provider;
  throw new SwitchboardError(
    'AGENT_NO_PROVIDER',
    `agent "${options.agentId}": no provider for model "${name}" (the config validation should have caught this)`,
  );
}
