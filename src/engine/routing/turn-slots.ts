/** A turn's hold on one of the global turn slots (`session.maxConcurrentTurns`). */
export interface SlotHold {
  /**
   * Gives the slot back while the turn waits for a human (an approval decision); the returned
   * function takes a slot again and resolves once the turn holds one, ahead of the turns waiting
   * to start. It rejects with the signal's reason when the turn is aborted meanwhile (the turn then
   * ends without a slot). Several calls of a turn may wait at once: the slot is given back once,
   * and taken again once, by the first of them decided; the others go on in it.
   */
  yield(): () => Promise<void>;
  /** Ends the hold (the turn ended): its slot, when it holds one, goes to the next waiting turn. */
  end(): void;
}

interface Waiter {
  grant(): void;
  /** A turn resuming after a wait for a human: served before the turns waiting to start. */
  resuming: boolean;
}

/**
 * The global limit on turns running at once. A turn holds a slot from its start to its end,
 * except while it waits for a human (`SlotHold.yield`): then the slot serves another session, and
 * the turn takes one again before going on. Never more than `limit` holds at once; resuming turns
 * get the next free slot before new ones, in the order they asked.
 */
export class TurnSlots {
  readonly #limit: number;
  #held = 0;
  readonly #waiting: Waiter[] = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Turns holding a slot now. */
  get held(): number {
    return this.#held;
  }

  /**
   * Resolves with a hold once a slot is free (in the order asked; resuming turns first). `signal`
   * is the turn's: aborted, a resume waiting for a slot gives up.
   */
  async acquire(signal: AbortSignal): Promise<SlotHold> {
    await this.#take(false, undefined);
    return this.#hold(signal);
  }

  #hold(signal: AbortSignal): SlotHold {
    let holds = true;
    let ended = false;
    /** The slot being taken again: every call that resumes meanwhile waits on the same one. */
    let again: Promise<void> | undefined;
    const takeAgain = () => {
      again ??= this.#take(true, signal).then(
        () => {
          again = undefined;
          if (ended) this.#free();
          else holds = true;
        },
        (error: unknown) => {
          again = undefined;
          throw error;
        },
      );
      return again;
    };
    return {
      // Several calls of one turn may wait at once: the first gives the slot back, the first
      // decided takes one again, and the others go on in it.
      yield: () => {
        if (holds && !ended) {
          holds = false;
          this.#free();
        }
        return async () => {
          if (!holds && !ended) await takeAgain();
        };
      },
      end: () => {
        if (ended) return;
        ended = true;
        if (holds) this.#free();
        holds = false;
      },
    };
  }

  #take(resuming: boolean, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    // Someone waits only while every slot is held: a free slot is taken at once.
    if (this.#held < this.#limit) {
      this.#held += 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resuming,
        grant: () => {
          signal?.removeEventListener('abort', stop);
          resolve();
        },
      };
      const stop = () => {
        const index = this.#waiting.indexOf(waiter);
        if (index >= 0) this.#waiting.splice(index, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', stop, { once: true });
      const firstNew = this.#waiting.findIndex((other) => !other.resuming);
      if (resuming && firstNew >= 0) this.#waiting.splice(firstNew, 0, waiter);
      else this.#waiting.push(waiter);
    });
  }

  /** A slot is free: the first waiter takes it (the count stays), else it is counted free. */
  #free(): void {
    const next = this.#waiting.shift();
    if (next) next.grant();
    else this.#held -= 1;
  }
}
