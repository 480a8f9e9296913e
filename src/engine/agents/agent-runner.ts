import { compactOnDemand } from './context/index.js';
import { createFailoverState } from './failover/index.js';
import { runTurn } from './run-turn.js';
import type { AgentRunnerOptions, RunnerState } from './runner-state.js';
import type { TurnRunner } from './types.js';

export type { AgentRunnerOptions } from './runner-state.js';

export interface AgentRunner extends TurnRunner {
  /** The running run of a session and its burst counter (rounds of its current or last turn). */
  activity(sessionKey: string): { runId?: string; burst: number };
}

/**
 * Runs turns through the tool loop. Every turn is a run in the run registry with a status;
 * a model failure, a timeout or an abort ends the run with a message in the chat, never an
 * exception. Every turn starts a burst of its own, a user's message or a runtime event (signal,
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
    runTurn: (request, session) => runTurn(state, request, session),
    compact: (request) => compactOnDemand(state, request),
    activity(sessionKey) {
      const runId = state.running.get(sessionKey);
      return { ...(runId === undefined ? {} : { runId }), burst: state.bursts.get(sessionKey) ?? 0 };
    },
  };
}
