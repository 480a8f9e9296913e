import { modelChain } from '../../../base/config/index.js';
import { errorText } from '../../../base/errors/index.js';
import { chainProvider } from '../chain-provider.js';
import type { RunnerState } from '../runner-state.js';
import type { CompactRequest, CompactResult } from '../types.js';
import { compactSession } from './compaction.js';
import { contextBudget } from './context-budget.js';
import { readSessionContext } from './session-context.js';

/**
 * `/compact`: the session's older entries summarized now by its agent's model, as a turn would
 * when over `context.compactAtPercent` (whatever `context.compaction` says). Not while a turn runs
 * in the session (it would not see the summary); a failed call is a result, never a throw.
 */
export async function compactOnDemand(state: RunnerState, request: CompactRequest): Promise<CompactResult> {
  const { config, sessions } = state.options;
  const chain = modelChain(config, request.agent.model);
  if (chain.length === 0) return { status: 'nothing', reason: 'this agent has no model to write a summary' };
  const provider = chainProvider(state, request.agentId, chain, request.logger);
  if (state.running.has(request.sessionKey))
    return { status: 'nothing', reason: 'a turn is running in this session; try again when it ends' };
  const history = await sessions.transcript(request.sessionKey, { last: config.agentLoop.historyEntries });
  const context = await readSessionContext(sessions, request.sessionKey, history);
  try {
    const outcome = await compactSession({
      provider,
      context,
      budget: contextBudget(config, request.agent.model),
      multiUser: request.chatType === 'channel',
      signal: AbortSignal.timeout(config.agentLoop.runTimeoutSeconds * 1000),
      record: request.record,
    });
    if (outcome.status === 'nothing') return outcome;
    const { summarized, tokensBefore, tokensAfter } = outcome;
    request.logger.info({ summarized, tokensBefore, tokensAfter }, 'session compacted on demand');
    return { status: 'compacted', summarized, tokensBefore, tokensAfter };
  } catch (error) {
    request.logger.warn({ err: error }, 'compaction on demand failed');
    return { status: 'failed', reason: errorText(error) };
  }
}
