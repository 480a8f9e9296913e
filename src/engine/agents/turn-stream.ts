import type { TurnEmit, TurnEvent, TurnResult, TurnStream } from './types.js';

interface Pending {
  event: TurnEvent;
  taken(): void;
}

/**
 * The stream of the turn `run` runs, started at once: `turn_start` first, `turn_end` after `run`
 * resolved. `result` rejects when `run` throws (a bug: a runner returns a status for every
 * expected failure); the iteration ends then.
 */
export function createTurnStream(run: (emit: TurnEmit) => Promise<TurnResult>): TurnStream {
  const waiting: Pending[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  let detached = false;
  const emit: TurnEmit = (event) => {
    if (detached) return Promise.resolve();
    return new Promise<void>((taken) => {
      waiting.push({ event, taken });
      wake?.();
    });
  };
  const result = (async () => {
    try {
      await emit({ type: 'turn_start' });
      const ending = await run(emit);
      await emit({ type: 'turn_end', result: ending });
      return ending;
    } finally {
      ended = true;
      wake?.();
    }
  })();
  result.catch(() => {});
  return {
    result,
    async *[Symbol.asyncIterator]() {
      let held: Pending | undefined;
      try {
        for (;;) {
          held = waiting.shift();
          if (held) {
            yield held.event;
            held.taken();
            held = undefined;
          } else if (ended) {
            return;
          } else {
            await new Promise<void>((resolve) => {
              wake = resolve;
            });
            wake = undefined;
          }
        }
      } finally {
        detached = true;
        held?.taken();
        for (const pending of waiting.splice(0)) pending.taken();
      }
    },
  };
}
