import { tokenCost } from '../../base/config/index.js';
import { causerOf } from '../tools/index.js';
import type { RunnerState } from './runner-state.js';
import type { ToolLoopEvent } from './tool-loop-events.js';
import type { TurnRequest } from './types.js';

/**
 * Counts a `model_end`'s tokens: the run's total (its record) and the usage ledger, both before
 * the loop goes on. A server that reports no usage has an estimate here (the OpenAI-compatible
 * provider's, marked `estimated`), counted like reported tokens and flagged as estimated.
 */
export async function recordModelUsage(
  state: RunnerState,
  request: TurnRequest,
  runId: string,
  event: Extract<ToolLoopEvent, { type: 'model_end' }>,
): Promise<void> {
  if (!event.usage) return;
  const { inputTokens, outputTokens } = event.usage;
  const price = state.options.config.models[event.model]?.price;
  const priced = price === undefined ? {} : { cost: tokenCost(price, event.usage) };
  await state.options.runs.addUsage(runId, { inputTokens, outputTokens, ...priced });
  await state.options.usage?.record({
    runId,
    sessionKey: request.sessionKey,
    agentId: request.agentId,
    channel: request.route.channel,
    // The one who caused the turn pays for it (a sub-agent's, a wake's): their usage, their budget.
    senderId: causerOf(request),
    model: event.model,
    inputTokens,
    outputTokens,
    ...priced,
    ...(event.usage.estimated && { estimated: true }),
  });
}
