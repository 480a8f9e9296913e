import type { TranscriptEntry } from '../../../records/sessions/index.js';
import type { ModelMessage, ModelToolSpec } from '../providers/index.js';
import type { RunnerState } from '../runner-state.js';
import type { LoopRun } from '../turn-loop.js';
import type { TurnRequest } from '../types.js';
import { compactSession, tokensOf } from './compaction.js';
import { type ContextBudget, contextBudget, fixedTokens } from './context-budget.js';
import { fitMessages } from './context-fit.js';
import { contextMessages, readSessionContext, type SessionContext } from './session-context.js';

/** After a failed compaction, a session's turns go on with the cut history this long before trying again. */
const RETRY_AFTER_MS = 10 * 60_000;

/** What a turn's model calls are given of the session: its messages and how each call's are fitted. */
export interface TurnContext {
  history: ModelMessage[];
  /** The messages of one model call cut to the context budget (every call: a tool loop grows them). */
  fit(messages: readonly ModelMessage[]): ModelMessage[];
}

/**
 * The session's context for a turn: the latest summary and the entries after it, compacted first
 * when the session is over `context.compactAtPercent` of the model's context (a failed summary is
 * logged and the turn goes on with the history cut to fit; the session's turns try again after
 * RETRY_AFTER_MS, so a model that is down is not asked twice a turn).
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
  if (
    shouldCompact(state, request.sessionKey) &&
    fixed + tokensOf(context, { budget, multiUser }) > budget.compactAtTokens
  )
    context = await compactForTurn(state, request, run, { context, budget, multiUser });
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

/** `context.compaction` is on and the session's last compaction did not fail within RETRY_AFTER_MS. */
function shouldCompact(state: RunnerState, sessionKey: string): boolean {
  if (!state.options.config.context.compaction) return false;
  const failed = state.compactionFailures.get(sessionKey);
  if (failed === undefined) return true;
  if (state.now().getTime() - failed < RETRY_AFTER_MS) return false;
  state.compactionFailures.delete(sessionKey);
  return true;
}

async function compactForTurn(
  state: RunnerState,
  request: TurnRequest,
  run: LoopRun,
  { context, budget, multiUser }: { context: SessionContext; budget: ContextBudget; multiUser: boolean },
): Promise<SessionContext> {
  try {
    const outcome = await compactSession({
      provider: run.provider,
      context,
      budget,
      ...(request.messages[0] ? { keepFrom: request.messages[0].seq } : {}),
      multiUser,
      signal: run.signal,
      record: run.record,
      // Its tokens count like any call's: a `model_end` without a reply (nothing is streamed).
      answered: (response) =>
        run.emit({
          type: 'model_end',
          replyId: crypto.randomUUID(),
          model: response.model ?? run.provider.name,
          ...(response.usage && { usage: response.usage }),
        }),
    });
    if (outcome.status === 'nothing') return context;
    const { tokensBefore, tokensAfter, entry } = outcome;
    run.logger.info({ entries: entry.compaction?.entries, tokensBefore, tokensAfter }, 'session compacted');
    return outcome.context;
  } catch (error) {
    if (run.signal.aborted) throw error;
    state.compactionFailures.set(request.sessionKey, state.now().getTime());
    run.logger.warn({ err: error }, 'compaction failed: the history is cut to fit instead');
    return context;
  }
}
