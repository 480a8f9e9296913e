import type { TurnStatus } from '../../src/base/messages/index.js';
import type { SubagentTurns, TurnReport } from '../../src/engine/subagents/index.js';
import type { RunStore, RuntimeTurnRequest } from '../../src/records/sessions/index.js';

export interface FakeTurn {
  request: RuntimeTurnRequest;
  /** The turn's agent run in the run store. */
  runId: string;
  /** Steers that joined this turn while it ran. */
  joined: RuntimeTurnRequest[];
  ended: boolean;
  /** Ends the turn: its run is finished in the run store, then `done` resolves. */
  end(reply?: string, status?: TurnStatus): Promise<void>;
}

/**
 * The turn port the sub-agent manager needs, with turns the test ends by hand. Every turn stays
 * open until `end` (or a `stopTurn` for its session, which ends it `killed`). A steer joins its
 * session's open turn (resolving with it), unless `steersJoin` is false: then it is a turn of its
 * own, as when it arrives while the turn gives its final answer.
 */
export function createFakeTurns(runs: RunStore) {
  const turns: FakeTurn[] = [];
  const stops: { sessionKey: string; reason: string }[] = [];
  const cleared: string[] = [];
  const waiters: (() => void)[] = [];
  const options = { steersJoin: true };
  const openIn = (sessionKey: string) =>
    turns.find((turn) => turn.request.sessionKey === sessionKey && !turn.ended);

  async function open(request: RuntimeTurnRequest): Promise<{ done: Promise<TurnReport> }> {
    const record = await runs.start({
      sessionKey: request.sessionKey,
      agentId: request.agentId,
      model: 'fake',
    });
    let resolve: (report: TurnReport) => void = () => {};
    const done = new Promise<TurnReport>((settle) => {
      resolve = settle;
    });
    const turn: FakeTurn = {
      request,
      runId: record.runId,
      joined: [],
      ended: false,
      async end(reply, status = 'done') {
        if (turn.ended) return;
        turn.ended = true;
        await runs.finish(record.runId, { status, rounds: 2, toolCalls: 3 });
        resolve({ status, replies: reply === undefined ? [] : [{ text: reply }], runId: record.runId });
      },
    };
    turns.push(turn);
    for (const wake of waiters.splice(0)) wake();
    return { done };
  }

  /** A joined steer resolves with the turn it joined. */
  const joinedEnds = new Map<RuntimeTurnRequest, (report: TurnReport) => void>();
  const endJoined = async (turn: FakeTurn, reply: string | undefined, status: TurnStatus) => {
    await turn.end(reply, status);
    for (const steer of turn.joined) {
      joinedEnds.get(steer)?.({
        status,
        replies: reply === undefined ? [] : [{ text: reply }],
        runId: turn.runId,
      });
    }
  };

  const port: SubagentTurns = {
    async startTurn(request) {
      const running = request.mode === 'steer' && options.steersJoin ? openIn(request.sessionKey) : undefined;
      if (!running) return open(request);
      running.joined.push(request);
      return { done: new Promise<TurnReport>((resolve) => joinedEnds.set(request, resolve)) };
    },
    stopTurn(sessionKey, reason) {
      stops.push({ sessionKey, reason });
      const running = openIn(sessionKey);
      if (running) void endJoined(running, undefined, 'killed');
      return running !== undefined;
    },
    clearQueue(sessionKey) {
      cleared.push(sessionKey);
      return 0;
    },
  };
  return {
    port,
    turns,
    stops,
    cleared,
    options,
    /** Resolves with the `index`-th turn (0-based) started in the session, once it has started. */
    async turnIn(sessionKey: string, index = 0): Promise<FakeTurn> {
      for (;;) {
        const found = turns.filter((turn) => turn.request.sessionKey === sessionKey)[index];
        if (found) return found;
        await new Promise<void>((wake) => waiters.push(wake));
      }
    },
    /** Ends the turn and the steers that joined it, with the same report. */
    end: (turn: FakeTurn, reply?: string, status: TurnStatus = 'done') => endJoined(turn, reply, status),
    openIn,
  };
}
