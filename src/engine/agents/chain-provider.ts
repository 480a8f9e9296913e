import type { Logger } from '../../base/logging/index.js';
import { createFailoverProvider, type FailoverProvider } from './failover/index.js';
import type { RunnerState } from './runner-state.js';

/** The provider of a turn (or a `/compact`): the agent's model chain, failing over along it. */
export function chainProvider(
  state: RunnerState,
  agentId: string,
  chain: string[],
  logger: Logger,
): FailoverProvider {
  const { providers, config } = state.options;
  return createFailoverProvider({
    agentId,
    chain,
    providers,
    models: config.models,
    state: state.failover,
    logger,
  });
}
