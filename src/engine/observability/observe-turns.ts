import type { TurnRunner, TurnStream } from '../agents/index.js';
import type { Observation } from './observation.js';
import { inSpan } from './tracing.js';

/**
 * The runner with each turn counted by agent and outcome (its `TurnStatus`: done, error,
 * timeout, killed, interrupted), timed, and in a `switchboard.turn` span, the parent of the
 * turn's model and tool call spans. A runner that throws (a bug: it returns a status for every
 * expected failure) counts as `error`. What else the runner does (`compact`) passes through.
 */
export function observeTurns(observation: Observation, runner: TurnRunner): TurnRunner {
  const { instruments } = observation.metrics;
  const compact = runner.compact?.bind(runner);
  return {
    ...(compact ? { compact } : {}),
    runTurn(request, session) {
      const agent = request.agentId;
      const attributes = {
        'switchboard.agent': agent,
        'switchboard.channel': request.route.channel,
        'switchboard.depth': request.depth,
      };
      // Started inside the span (its work runs at once), so the turn's model and tool call spans are its children.
      let turn: TurnStream | undefined;
      const result = inSpan(observation.tracer, 'switchboard.turn', attributes, async (span) => {
        const started = performance.now();
        instruments.turnsRunning.inc();
        let outcome = 'error';
        try {
          turn = runner.runTurn(request, session);
          const ended = await turn.result;
          outcome = ended.status;
          span.setAttribute('switchboard.outcome', outcome);
          if (ended.runId !== undefined) span.setAttribute('switchboard.run_id', ended.runId);
          return ended;
        } finally {
          instruments.turnsRunning.dec();
          instruments.turns.inc({ agent, outcome });
          instruments.turnDuration.observe({ agent }, (performance.now() - started) / 1000);
        }
      });
      return {
        result,
        [Symbol.asyncIterator]: () => (turn as TurnStream)[Symbol.asyncIterator](),
      };
    },
  };
}
