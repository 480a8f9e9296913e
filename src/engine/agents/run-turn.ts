import { modelChain } from '../../base/config/index.js';
import { errorText } from '../../base/errors/index.js';
import type { Logger } from '../../base/logging/index.js';
import type { RunStatus, TranscriptEntry } from '../../records/sessions/index.js';
import { type TurnScope, turnScope } from '../tools/index.js';
import { chainProvider } from './chain-provider.js';
import type { FailoverProvider } from './failover/index.js';
import { noModelReply } from './no-model-reply.js';
import { ModelCallError } from './providers/index.js';
import { createRunProgress, type RunProgress } from './run-progress.js';
import { createRunSignal } from './run-signal.js';
import { recordModelUsage } from './run-usage.js';
import type { RunnerState } from './runner-state.js';
import { runTurnLoop } from './turn-loop.js';
import { TurnAbort, type TurnRequest, type TurnResult } from './types.js';

/** How a run ended: the status it is recorded with and, unless done, why. */
interface RunEnding {
  status: Exclude<RunStatus, 'running'>;
  outcome?: string;
}

/** What the end of a run needs to know about it. */
interface ActiveRun {
  runId: string;
  /** The session's recent transcript (the turn's messages included), read as the run started. */
  history: Promise<TranscriptEntry[]>;
  signal: AbortSignal;
  timedOut(): boolean;
  /** Stops the time limit while a tool call waits for a human (see RunSignal.pause). */
  pauseTimeLimit(): () => void;
  timeoutSeconds: number;
  progress: RunProgress;
  logger: Logger;
}

/**
 * Runs one turn as a run in the run registry. A model failure, a timeout or an abort ends the
 * run with a message in the chat, never an exception.
 */
export async function runTurn(state: RunnerState, request: TurnRequest): Promise<TurnResult> {
  const { agent, sessionKey } = request;
  const chain = modelChain(state.options.config, agent.model);
  const model = chain[0];
  if (model === undefined) return answerWithoutModel(state, request);
  const provider = chainProvider(state, request.agentId, chain, request.logger);
  const refusal = await state.options.usage?.refusal(budgetScope(request, state.options.config.owners));
  if (refusal !== undefined) return refuseTurn(request, refusal);
  const burst = { value: 0 };
  state.bursts.set(sessionKey, burst);
  // Read while the run is registered: one store round trip instead of two before the first model call.
  const history = state.options.sessions.transcript(sessionKey, {
    last: state.options.config.agentLoop.historyEntries,
  });
  history.catch(() => {});
  const { runId } = await state.options.runs.start({
    sessionKey,
    agentId: request.agentId,
    model,
  });
  state.running.set(sessionKey, runId);
  const timeoutSeconds = request.runTimeoutSeconds ?? state.options.config.agentLoop.runTimeoutSeconds;
  const runSignal = createRunSignal(request.signal, timeoutSeconds, runId);
  const run: ActiveRun = {
    runId,
    history,
    signal: runSignal.signal,
    timedOut: runSignal.timedOut,
    pauseTimeLimit: runSignal.pause,
    timeoutSeconds,
    progress: createRunProgress(request, burst, (event) => recordModelUsage(state, request, runId, event)),
    logger: request.logger.child({ run: runId }),
  };
  let ending: RunEnding = { status: 'done' };
  try {
    ending = await loopToEnd(state, request, run, provider);
  } catch (error) {
    ending = await failedEnding(request, run, error);
  } finally {
    runSignal.dispose();
    state.running.delete(sessionKey);
    const { rounds, toolCalls } = run.progress;
    const answeredBy = provider.answered();
    await state.options.runs.finish(runId, {
      ...ending,
      rounds,
      toolCalls,
      ...(answeredBy.length > 0 ? { answeredBy } : {}),
    });
  }
  const { rounds, toolCalls } = run.progress;
  // A run that ends as expected is no news at the default level (it would be a line per message).
  const level = ending.status === 'done' ? 'debug' : 'info';
  run.logger[level]({ status: ending.status, rounds, toolCalls }, 'run ended');
  return { status: ending.status, runId };
}

/**
 * The turn as the budgets see it: charged to the one who caused it. A runtime turn someone caused
 * (their sub-agent, their message's wake) is theirs, exempt only when they are an owner.
 */
function budgetScope(request: TurnRequest, owners: readonly string[]): TurnScope {
  const scope = turnScope(request);
  if (request.chargedTo === undefined) return scope;
  return { ...scope, senderId: request.chargedTo, isOwner: owners.includes(request.chargedTo) };
}

async function answerWithoutModel(state: RunnerState, request: TurnRequest): Promise<TurnResult> {
  const { agentId, agent } = request;
  const text = noModelReply({ agentId, agent, configPath: state.options.configPath });
  await request.record({ role: 'assistant', text });
  await request.reply({ id: crypto.randomUUID(), text });
  return { status: 'done' };
}

/** A spent budget: the turn does not start (no run, no model call); the chat is told why. */
async function refuseTurn(request: TurnRequest, refusal: string): Promise<TurnResult> {
  request.logger.info({ agent: request.agentId, sender: request.senderId }, 'turn refused: budget spent');
  await tell(request, refusal);
  return { status: 'done' };
}

async function loopToEnd(
  state: RunnerState,
  request: TurnRequest,
  run: ActiveRun,
  provider: FailoverProvider,
): Promise<RunEnding> {
  const { runId, signal, logger, history } = run;
  const end = await runTurnLoop(state, request, {
    runId,
    provider,
    signal,
    pauseTimeLimit: run.pauseTimeLimit,
    logger,
    history,
    emit: run.progress.emit,
    takesImages: state.options.config.models[provider.name]?.images !== false,
  });
  const fallback = provider.fallback();
  if (fallback && state.options.config.agentLoop.failoverNotice)
    await tell(request, `(Answered by fallback model "${fallback.model}": ${fallback.why})`);
  if (end !== 'max_burst') return { status: 'done' };
  await tell(
    request,
    `I have used ${state.options.config.agentLoop.maxBurst} rounds of model calls and tools since your last message, ` +
      'so I am pausing here and waiting for you. Reply to let me continue.',
  );
  return { status: 'done', outcome: 'max burst reached' };
}

/** An aborted run (killed, interrupted, timed out) or a failed one, told in the chat. */
async function failedEnding(request: TurnRequest, run: ActiveRun, error: unknown): Promise<RunEnding> {
  if (run.signal.aborted) {
    const timedOut = run.timedOut() && !request.signal.aborted;
    const status = timedOut ? 'timeout' : abortStatus(request.signal.reason);
    const outcome = timedOut ? `timed out after ${run.timeoutSeconds} s` : errorText(request.signal.reason);
    await endStream(request, run, status);
    if (timedOut) await tell(request, `The run timed out after ${run.timeoutSeconds} s.`);
    return { status, outcome };
  }
  const outcome = errorText(error);
  if (!(error instanceof ModelCallError)) run.logger.error({ err: error }, 'run failed');
  await tell(request, error instanceof ModelCallError ? error.message : `The run failed: ${outcome}`);
  return { status: 'error', outcome };
}

function abortStatus(reason: unknown): 'killed' | 'interrupted' {
  return reason instanceof TurnAbort ? reason.status : 'killed';
}

/** A message from the gateway itself (not the model): recorded as a system entry and sent. */
async function tell(request: TurnRequest, text: string): Promise<void> {
  await request.record({ role: 'system', text });
  await request.reply({ id: crypto.randomUUID(), text });
}

/** A reply cut off mid-stream is completed with what was written and marked, so the chat does not show it as still typing. */
async function endStream(request: TurnRequest, run: ActiveRun, status: RunStatus): Promise<void> {
  const streaming = run.progress.streaming;
  if (!streaming || streaming.text.trim() === '') return;
  const text = `${streaming.text}\n\n[${status === 'timeout' ? 'timed out' : 'stopped'}]`;
  await request.record({ role: 'assistant', text, runId: run.runId });
  await request.reply({ id: streaming.id, text });
}
