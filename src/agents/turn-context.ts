import type { TranscriptEntry } from '../sessions/index.js';
import { compactSession, tokensOf } from './compaction.js';
import { contextBudget, fixedTokens } from './context-budget.js';
import { fitMessages } from './context-fit.js';
import type { ModelMessage, ModelToolSpec } from './providers/index.js';
import type { RunnerState } from './runner-state.js';
import { contextMessages, readSessionContext, type SessionContext } from './session-context.js';
import type { LoopRun } from './turn-loop.js';
import type { TurnRequest } from './types.js';

/** What a turn's model calls are given of the session: its messages and how each call's are fitted. */
export interface TurnContext {
  history: ModelMessage[];
  /** The messages of one model call cut to the context budget (every call: a tool loop grows them). */
  fit(messages: readonly ModelMessage[]): ModelMessage[];
}

/**
 * The session's context for a turn: the latest summary and the entries after it, compacted first
 * when the session is over `context.compactAtPercent` of the model's context (a failed summary is
 * logged and the turn goes on with the history cut to fit).
 */
export async function buildTurnContext(
  state: RunnerState,
  request: TurnRequest,
  run: LoopRun,
  turn: { history: readonly TranscriptEntry[]; system: string; tools: readonly ModelToolSpec[] },
): Promise<TurnContext> {
  const budget = contextBudget(state.options.config, request.agent.model);
  const multiUser = request.route.chatType === 'channel';
  const fixed = fixedTokens(turn.system, turn.tools);
  let context = await readSessionContext(state.options.sessions, request.sessionKey, turn.history);
  if (budget.compaction && fixed + tokensOf(context, { budget, multiUser }) > budget.compactAtTokens)
    context = await compactForTurn(request, run, context, budget, multiUser);
  const options = {
    budgetTokens: budget.contextTokens - budget.replyTokens - fixed,
    toolResultChars: budget.toolResultChars,
    pinned: context.summary ? 1 : 0,
  };
  return {
    history: contextMessages(context, { multiUser }),
    fit: (messages) => fitMessages(messages, options),
  };
}

async function compactForTurn(
  request: TurnRequest,
  run: LoopRun,
  context: SessionContext,
  budget: ReturnType<typeof contextBudget>,
  multiUser: boolean,
): Promise<SessionContext> {
  try {
    const outcome = await compactSession({
      provider: run.provider,
      context,
      budget,
      ...(request.messages[0] ? { keepFrom: request.messages[0].seq } : {}),
      multiUser,
      signal: run.signal,
      record: request.record,
    });
    if (outcome.status === 'nothing') return context;
    const { tokensBefore, tokensAfter, entry } = outcome;
    run.logger.info({ entries: entry.compaction?.entries, tokensBefore, tokensAfter }, 'session compacted');
    return outcome.context;
  } catch (error) {
    if (run.signal.aborted) throw error;
    run.logger.warn({ err: error }, 'compaction failed: the history is cut to fit instead');
    return context;
  }
}
