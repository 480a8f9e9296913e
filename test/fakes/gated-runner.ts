import {
  createTurnStream,
  type TurnRequest,
  type TurnResult,
  type TurnRunner,
  type TurnSession,
} from '../../src/engine/agents/index.js';

/** A turn as the test sees it: its request and what its session lends it (`takeSteered`, `yieldSlot`). */
export type GatedTurn = TurnRequest & TurnSession;

interface OpenTurn {
  request: GatedTurn;
  /** Ends the turn with a reply naming the texts it answered. */
  release(): void;
}

/**
 * A turn runner that holds every turn open until the test releases it, and records which
 * messages each turn answered. An aborted turn ends at once with status `killed`.
 */
export function createGatedRunner() {
  const turns: GatedTurn[] = [];
  const open: OpenTurn[] = [];
  const waiters: (() => void)[] = [];
  let running = 0;
  let maxRunning = 0;

  const runner: TurnRunner = {
    runTurn(turnRequest, session) {
      const request: GatedTurn = { ...turnRequest, ...session };
      turns.push(request);
      running += 1;
      maxRunning = Math.max(maxRunning, running);
      return createTurnStream(
        (emit) =>
          new Promise<TurnResult>((resolve) => {
            let finished = false;
            const finish = (result: TurnResult) => {
              if (finished) return;
              finished = true;
              running -= 1;
              const index = open.findIndex((turn) => turn.request === request);
              if (index >= 0) open.splice(index, 1);
              resolve(result);
            };
            request.signal.addEventListener('abort', () => finish({ status: 'killed' }), {
              once: true,
            });
            open.push({
              request,
              release: () => {
                // Leaves the open list at once: the reply is written asynchronously.
                open.splice(
                  open.findIndex((turn) => turn.request === request),
                  1,
                );
                const text = `answered: ${request.messages.map((message) => message.text).join(' + ')}`;
                void request
                  .record({ role: 'assistant', text })
                  .then(() => emit({ type: 'reply', message: { id: crypto.randomUUID(), text } }))
                  .then(() => finish({ status: 'done' }));
              },
            });
            for (const wake of waiters.splice(0)) wake();
          }),
      );
    },
  };

  return {
    runner,
    /** Every turn started so far, in order. */
    turns,
    get running() {
      return running;
    },
    get maxRunning() {
      return maxRunning;
    },
    /** Resolves once `count` turns are open (started and not ended). */
    async waitForOpen(count: number): Promise<void> {
      while (open.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
    },
    /** Releases the open turn that started `index`-th (0: the first turn of all), wherever it is in the open list. */
    releaseTurn(index: number): void {
      const turn = open.find((candidate) => candidate.request === turns[index]);
      if (!turn) throw new Error(`turn ${index} is not open`);
      turn.release();
    },
    /** Releases the oldest open turn. */
    releaseNext(): void {
      const turn = open[0];
      if (!turn) throw new Error('no open turn to release');
      turn.release();
    },
  };
}
