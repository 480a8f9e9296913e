import { isOwnerIdentity } from '../../base/access/index.js';
import { modelChain } from '../../base/config/index.js';
import { errorText } from '../../base/errors/index.js';
import type { Logger } from '../../base/logging/index.js';
import type { RunStatus, TranscriptEntry } from '../../records/sessions/index.js';
import { type TurnScope, turnScope } from '../tools/index.js';
import { chainProvider } from './chain-provider.js';
import { compactOnDemand } from './context/index.js';
import type { FailoverProvider } from './failover/index.js';
import { createFailoverState } from './failover/index.js';
import { noModelReply } from './no-model-reply.js';
import { ModelCallError } from './providers/index.js';
import { createRunSignal } from './run-signal.js';
import { recordModelUsage } from './run-usage.js';
import type { AgentRunnerOptions, RunnerState } from './runner-state.js';
import type { ToolLoopEvent } from './tool-loop-events.js';
import { runTurnLoop } from './turn-loop.js';
import { createTurnStream } from './turn-stream.js';
import {
  TurnAbort,
  type TurnEmit,
  type TurnRequest,
  type TurnResult,
  type TurnRunner,
  type TurnSession,
} from './types.js';

export interface AgentRunner extends TurnRunner {
  /** The running run of a session and its burst counter (rounds of its current or last turn). */
  activity(sessionKey: string): { runId?: string; burst: number };
}

/**
 * Runs turns through the tool loop. Every turn is a run in the run registry with a status; its
 * events and result come back on the turn's stream. A model failure, a timeout or an abort ends
 * the run with a message in the chat, never an exception. Every turn starts a burst of its own, a user's message or a runtime event (signal,
 * announcement, schedule) alike, so turns the runtime starts never use up the rounds of another.
 */
export function createAgentRunner(options: AgentRunnerOptions): AgentRunner {
  const state: RunnerState = {
    options,
    now: options.now ?? (() => new Date()),
    bursts: new Map(),
    running: new Map(),
    failover: options.failover ?? createFailoverState(),
    compactionFailures: new Map(),
  };
  return {
    runTurn: (request, session) => createTurnStream((emit) => runRun(state, { request, session, emit })),
    compact: (request) => compactOnDemand(state, request),
    activity(sessionKey) {
      const runId = state.running.get(sessionKey);
      return { ...(runId === undefined ? {} : { runId }), burst: state.bursts.get(sessionKey) ?? 0 };
    },
  };
}

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
  tally: RunTally;
  logger: Logger;
}

/** What a run's tool loop has done so far, counted from its events; read when the run ends. */
interface RunTally {
  rounds: number;
  toolCalls: number;
  /** The reply being streamed by the current model call, if any (for a clean end on abort). */
  streaming: { id: string; text: string } | undefined;
}

/** The turn's words to its chat: the loop's and the runner's own, as events of its stream. */
interface TurnVoice {
  request: TurnRequest;
  session: TurnSession;
  emit: TurnEmit;
}

async function runRun(state: RunnerState, voice: TurnVoice): Promise<TurnResult> {
  const { request, session } = voice;
  const { agent, sessionKey } = request;
  const chain = modelChain(state.options.config, agent.model);
  const model = chain[0];
  if (model === undefined) return answerWithoutModel(state, voice);
  const provider = chainProvider(state, request.agentId, chain, session.logger);
  const refusal = await state.options.usage?.refusal(budgetScope(request, state.options.config));
  if (refusal !== undefined) return refuseTurn(voice, refusal);
  state.bursts.set(sessionKey, 0);
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
    tally: { rounds: 0, toolCalls: 0, streaming: undefined },
    logger: session.logger.child({ run: runId }),
  };
  let ending: RunEnding = { status: 'done' };
  try {
    ending = await loopToEnd(state, voice, run, provider);
  } catch (error) {
    ending = await failedEnding(voice, run, error);
  } finally {
    runSignal.dispose();
    state.running.delete(sessionKey);
    const { rounds, toolCalls } = run.tally;
    const answeredBy = provider.answered();
    await state.options.runs.finish(runId, {
      ...ending,
      rounds,
      toolCalls,
      ...(answeredBy.length > 0 ? { answeredBy } : {}),
    });
  }
  const { rounds, toolCalls } = run.tally;
  // A run that ends as expected is no news at the default level (it would be a line per message).
  const level = ending.status === 'done' ? 'debug' : 'info';
  run.logger[level]({ status: ending.status, rounds, toolCalls }, 'run ended');
  return { status: ending.status, runId };
}

/**
 * The turn as the budgets see it: charged to the one who caused it. A runtime turn someone caused
 * (their sub-agent, their message's wake) is theirs, exempt only when they are an owner: named by
 * `owners` or a person whose role is owner, as for their own messages.
 */
function budgetScope(request: TurnRequest, config: AgentRunnerOptions['config']): TurnScope {
  const scope = turnScope(request);
  if (request.chargedTo === undefined) return scope;
  return { ...scope, senderId: request.chargedTo, isOwner: isOwnerIdentity(config, request.chargedTo) };
}

async function answerWithoutModel(state: RunnerState, voice: TurnVoice): Promise<TurnResult> {
  const { agentId, agent } = voice.request;
  const text = noModelReply({ agentId, agent, configPath: state.options.configPath });
  await voice.session.record({ role: 'assistant', text });
  await voice.emit({ type: 'reply', message: { id: crypto.randomUUID(), text } });
  return { status: 'done' };
}

/** A spent budget: the turn does not start (no run, no model call); the chat is told why. */
async function refuseTurn(voice: TurnVoice, refusal: string): Promise<TurnResult> {
  const { request } = voice;
  voice.session.logger.info(
    { agent: request.agentId, sender: request.senderId },
    'turn refused: budget spent',
  );
  await tell(voice, refusal);
  return { status: 'done' };
}

async function loopToEnd(
  state: RunnerState,
  voice: TurnVoice,
  run: ActiveRun,
  provider: FailoverProvider,
): Promise<RunEnding> {
  const { runId, signal, logger, history } = run;
  const { request, session } = voice;
  const end = await runTurnLoop(state, request, session, {
    runId,
    record: session.record,
    provider,
    signal,
    pauseTimeLimit: run.pauseTimeLimit,
    logger,
    history,
    emit: (event) => followLoop(state, voice, run, event),
    takesImages: state.options.config.models[provider.name]?.images !== false,
  });
  const fallback = provider.fallback();
  if (fallback && state.options.config.agentLoop.failoverNotice)
    await tell(voice, `(Answered by fallback model "${fallback.model}": ${fallback.why})`);
  if (end !== 'max_burst') return { status: 'done' };
  await tell(
    voice,
    `I have used ${state.options.config.agentLoop.maxBurst} rounds of model calls and tools since your last message, ` +
      'so I am pausing here and waiting for you. Reply to let me continue.',
  );
  return { status: 'done', outcome: 'max burst reached' };
}

/** An aborted run (killed, interrupted, timed out) or a failed one, told in the chat. */
async function failedEnding(voice: TurnVoice, run: ActiveRun, error: unknown): Promise<RunEnding> {
  const { request } = voice;
  if (run.signal.aborted) {
    const timedOut = run.timedOut() && !request.signal.aborted;
    const status = timedOut ? 'timeout' : abortStatus(request.signal.reason);
    const outcome = timedOut ? `timed out after ${run.timeoutSeconds} s` : errorText(request.signal.reason);
    await endStream(voice, run, status);
    if (timedOut) await tell(voice, `The run timed out after ${run.timeoutSeconds} s.`);
    return { status, outcome };
  }
  const outcome = errorText(error);
  if (!(error instanceof ModelCallError)) run.logger.error({ err: error }, 'run failed');
  await tell(voice, error instanceof ModelCallError ? error.message : `The run failed: ${outcome}`);
  return { status: 'error', outcome };
}

function abortStatus(reason: unknown): 'killed' | 'interrupted' {
  return reason instanceof TurnAbort ? reason.status : 'killed';
}

/** A message from the gateway itself (not the model): recorded as a system entry and sent. */
async function tell(voice: TurnVoice, text: string): Promise<void> {
  await voice.session.record({ role: 'system', text });
  await voice.emit({ type: 'reply', message: { id: crypto.randomUUID(), text } });
}

/** A reply cut off mid-stream is completed with what was written and marked, so the chat does not show it as still typing. */
async function endStream(voice: TurnVoice, run: ActiveRun, status: RunStatus): Promise<void> {
  const streaming = run.tally.streaming;
  if (!streaming || streaming.text.trim() === '') return;
  const text = `${streaming.text}\n\n[${status === 'timeout' ? 'timed out' : 'stopped'}]`;
  await voice.session.record({ role: 'assistant', text, runId: run.runId });
  await voice.emit({ type: 'reply', message: { id: streaming.id, text } });
}

/**
 * Counts a loop event into the run's tally (and the session's burst, read by
 * `AgentRunner.activity`), records a model call's tokens before the loop goes on, and passes the
 * event on to the turn's stream (a `text_delta` without waiting: the model is still writing).
 */
async function followLoop(state: RunnerState, voice: TurnVoice, run: ActiveRun, event: ToolLoopEvent) {
  const { tally } = run;
  switch (event.type) {
    case 'round_start':
      state.bursts.set(voice.request.sessionKey, event.burst);
      tally.rounds += 1;
      break;
    case 'model_start':
      tally.streaming = { id: event.replyId, text: '' };
      break;
    case 'text_delta':
      if (tally.streaming?.id === event.replyId) tally.streaming.text += event.delta;
      void voice.emit(event);
      return;
    case 'model_end':
      tally.streaming = undefined;
      await recordModelUsage(state, voice.request, run.runId, event);
      break;
    case 'tool_end':
      tally.toolCalls += 1;
      break;
  }
  await voice.emit(event);
}
